import * as z from 'zod';
import { isAssistant } from '../model/message.js';
import type { Strategy } from './types.js';

/** `prune-tools` takes no options: it only looks at which tools the transcript calls. */
const PruneToolsConfigSchema = z.strictObject({});

/** Removes tool definitions the transcript never calls; messages are untouched. */
export const pruneTools: Strategy<typeof PruneToolsConfigSchema> = {
  name: 'prune-tools',
  summary: 'remove tool definitions never called in the transcript',
  config: PruneToolsConfigSchema,
  apply(transcript, _config, ctx) {
    const tools = transcript.tools;
    if (!tools || tools.length === 0) return { transcript, messagesChanged: 0, messagesRemoved: 0, details: { toolDefsRemoved: 0 } };
    const called = new Set<string>();
    for (const m of transcript.messages) if (isAssistant(m)) for (const c of m.tool_calls ?? []) called.add(c.function.name);
    const kept = tools.filter((t) => called.has(t.function.name));
    const removed = tools.length - kept.length;
    if (removed === 0) return { transcript, messagesChanged: 0, messagesRemoved: 0, details: { toolDefsRemoved: 0 } };
    for (const t of tools) if (!called.has(t.function.name)) ctx.refs?.putJson(JSON.stringify(t));
    // An empty `tools` array is rejected by chat APIs, so the field goes when nothing is left.
    const { tools: _all, ...rest } = transcript;
    const next = kept.length > 0 ? { ...rest, tools: kept } : rest;
    return { transcript: next as typeof transcript, messagesChanged: 0, messagesRemoved: 0, details: { toolDefsRemoved: removed } };
  },
};
