import type { Message } from '../model/message.js';
import { recordedCall } from '../model/recorded.js';
import { describeToolCall } from '../model/tool-semantics.js';
import type { Transcript } from '../model/transcript.js';
import { messageTokens } from '../tokens/breakdown.js';
import type { Tokenizer } from '../tokens/tokenizer.js';
import type { UnloggedSpan } from './billing/token-ratio.js';

/**
 * The `@file` contents a client sent with the prompts before its first recorded call and did not log (Claude Code
 * before 2.1.128, `file_mentions`, see formats/_claude-code-mentions.ts). Measured as part of the base prompt, they
 * would be sent with every call, after the source's compaction too, where the prompt that named them is summarised
 * away. Each prompt's files are an unlogged span on that prompt instead, which goes with it when it is dropped.
 *
 * A file is sized by the Read tool's result for the same path, where the transcript holds one (the client sends the
 * file as that tool's result); `unsized` are the files it does not hold.
 */
export interface AbsorbedMentions {
  spans: UnloggedSpan[];
  /** Files sized from a Read result in the transcript, and their tokens. */
  sized: { files: number; tokens: number };
  unsized: string[];
}

export function absorbedFileMentions(transcript: Transcript, tokenizer: Tokenizer): AbsorbedMentions | undefined {
  const messages = transcript.messages;
  const first = messages.findIndex((m) => recordedCall(m) !== undefined);
  if (first < 0) return undefined;
  const before = messages.slice(0, first);
  // Logged as attachments (2.1.128+): the replay sends them already.
  if (before.some((m) => m.role === 'user' && m.attachment === 'file')) return undefined;
  const reads = readResults(messages);
  const spans: UnloggedSpan[] = [];
  const sized = { files: 0, tokens: 0 };
  const unsized: string[] = [];
  for (const [at, m] of before.entries()) {
    const named = m.role === 'user' && Array.isArray(m.file_mentions) ? m.file_mentions.filter((p): p is string => typeof p === 'string') : [];
    if (named.length === 0) continue;
    let tokens = 0;
    for (const path of named) {
      const result = reads.find((r) => samePath(r.path, path));
      if (!result) {
        unsized.push(path);
        continue;
      }
      const n = messageTokens(result.message, tokenizer);
      tokens += n;
      sized.files++;
      sized.tokens += n;
    }
    spans.push({ at, tokens, from: first });
  }
  return spans.length > 0 ? { spans, sized, unsized } : undefined;
}

/** The results of the transcript's Read calls, with the path each read. */
function readResults(messages: readonly Message[]): { path: string; message: Message }[] {
  const paths = new Map<string, string>();
  const out: { path: string; message: Message }[] = [];
  for (const m of messages) {
    if (m.role === 'assistant' && Array.isArray(m.tool_calls))
      for (const call of m.tool_calls) {
        const action = describeToolCall(call.function.name, call.function.arguments);
        if (action.kind === 'read') paths.set(call.id, action.path);
      }
    if (m.role === 'tool' && m.is_error !== true && typeof m.tool_call_id === 'string') {
      const path = paths.get(m.tool_call_id);
      if (path !== undefined) out.push({ path, message: m });
    }
  }
  return out;
}

/** A Read call's path (absolute, as Claude Code sends it) and a mention (relative to the project, as typed). */
function samePath(read: string, mention: string): boolean {
  const m = mention.replace(/^\.\//, '');
  return read === m || read.endsWith(`/${m}`);
}
