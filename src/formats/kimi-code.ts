import { basename, dirname } from 'node:path';
import type { Message } from '../model/message.js';
import { type CallUsage, KimiCodeContext, tokenUsage } from './_kimi-code-context.js';
import { errorItem, finishTranscript, isObject, skippedItem } from './_items.js';
import type { JsonSignature } from './_json-peek.js';
import { lineItem, readJsonl } from './_jsonl.js';
import type { InputItem, ReadOptions, SourcePosition } from './types.js';

/**
 * Kimi Code sessions (MoonshotAI/kimi-code, the TypeScript agent that followed Kimi CLI): one record log per agent,
 * `$KIMI_CODE_HOME` or `~/.kimi-code`, `sessions/wd_<slug>_<sha256 of the work dir, 12>/<session id>/agents/<agent
 * id>/wire.jsonl` (`packages/agent-core/src/session/store/session-store.ts`, `workdir-key.ts`). One transcript per
 * file: the main agent's is the session (id the session folder), a subagent's (`agents/agent-0/`...) its own
 * transcript `<session>/<agent>` with metadata.parentSessionId, so its calls stay apart from the session's.
 * Records (`packages/agent-core/src/agent/records/types.ts`) are `{type, ...payload, time}` after a `metadata` line:
 * - the context (`agent/context/index.ts` `ContextMemory`): `context.append_message` (a user or injected message),
 *   `context.append_loop_event` (`step.begin` opens an assistant message, `content.part` text / think and `tool.call`
 *   fill it, `tool.result` follows, `step.end`), and what replaces it: `context.apply_compaction` (the kept user
 *   messages, then the summary), `context.undo`, `context.clear`. A replacement's messages are copies marked
 *   `is_compact_summary` and listed in metadata.compactions, so `simulate --policy source` starts over there;
 * - usage: `usage.record {model, usage, usageScope}` after each step (`turn`, `agent/turn/index.ts` `afterStep`) is
 *   that step's usage; one outside a step (`session`: the compaction's own request, `compaction/full.ts`) is listed in
 *   metadata.embeddedCalls as agent `compaction`, a call of the session that no message holds. A step without a
 *   `usage.record` keeps the usage its `step.end` carried;
 * - `state.json` beside the agents (the session's title, work directory and agents) is one unit skipped as
 *   `record:kimi-code/state`;
 * - the system prompt is `config.update`'s `systemPrompt`; every other record (turns, permissions, tools, requests'
 *   traces, goals...) is bookkeeping, counted with the transcript by type in metadata.records.
 */
export async function* readKimiCode(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  if (basename(file) === 'state.json') {
    // The session's title, work directory and agents, read with the agents' logs: one unit, skipped.
    yield skippedItem({ file, line: 1, byteOffset: 0 }, 'record:kimi-code/state');
    return;
  }
  const context = new KimiCodeContext();
  const records: Record<string, number> = {};
  const otherCalls: { model?: string; usage: CallUsage }[] = [];
  const warnings: string[] = [];
  let system: string | undefined;
  let systemChanges = 0;
  let microCompactions = 0;
  let protocol: string | undefined;
  let first: SourcePosition | undefined;
  let units = 0;
  for await (const entry of readJsonl(file, options)) {
    if (entry.kind !== 'value') {
      yield lineItem(entry);
      continue;
    }
    const r = entry.value;
    if (!isRecordOfLog(r)) {
      yield errorItem(entry.at, 'E_SCHEMA', 'expected a Kimi Code record ({type, ...payload, time})');
      continue;
    }
    const time = typeof r.time === 'number' ? new Date(r.time).toISOString() : undefined;
    let problem: string | undefined;
    switch (r.type) {
      case 'metadata':
        protocol = r.protocol_version as string;
        break;
      case 'config.update':
        if (typeof r.systemPrompt === 'string' && r.systemPrompt !== system) {
          if (system !== undefined) systemChanges++;
          system ??= r.systemPrompt;
        }
        break;
      case 'context.append_message':
        problem = context.appendMessage(r.message, time);
        break;
      case 'context.append_loop_event':
        problem = context.loopEvent(r.event, time);
        break;
      case 'context.apply_compaction':
        problem = context.compact(r);
        break;
      case 'context.clear':
        context.clear();
        break;
      case 'context.undo':
        if (typeof r.count !== 'number') problem = 'context.undo: count is not a number';
        else context.undo(r.count);
        break;
      case 'micro_compaction.apply':
        microCompactions++;
        break;
      case 'usage.record': {
        const usage = tokenUsage(r.usage);
        if (!usage) problem = 'usage.record: usage is not a TokenUsage';
        else if (Object.values(usage).some((v) => v > 0)) {
          const model = typeof r.model === 'string' && r.model !== '' ? r.model : undefined;
          if (r.usageScope === 'session' || !context.bill(usage, model)) otherCalls.push({ ...(model ? { model } : {}), usage });
        }
        break;
      }
    }
    if (problem !== undefined) {
      yield errorItem(entry.at, 'E_SCHEMA', problem);
      continue;
    }
    records[r.type as string] = (records[r.type as string] ?? 0) + 1;
    first ??= entry.at;
    units++;
  }
  if (!first) return;
  const fromSteps = context.billFromSteps();
  const agentDir = dirname(file);
  const agentId = basename(agentDir);
  const sessionDir = dirname(dirname(agentDir));
  const sessionId = basename(sessionDir);
  const main = agentId === 'main' || basename(dirname(agentDir)) !== 'agents';
  const metadata: Record<string, unknown> = {
    source: { format: 'kimi-code', file },
    sessionId,
    agentId,
    workDirKey: basename(dirname(sessionDir)),
    records,
    ...(protocol ? { protocolVersion: protocol } : {}),
    ...(main ? {} : { parentSessionId: sessionId }),
    ...(systemChanges > 0 ? { systemPromptChanges: systemChanges } : {}),
    ...(microCompactions > 0 ? { microCompactions } : {}),
    ...(fromSteps > 0 ? { usageFromStepEnd: fromSteps } : {}),
    ...(otherCalls.length > 0 ? { embeddedCalls: [{ agentId: 'compaction', calls: otherCalls }] } : {}),
  };
  const messages: Message[] = system === undefined ? [...context.log] : [{ role: 'system', content: system }, ...context.log];
  const offset = system === undefined ? 0 : 1;
  const replacements = context.replacements;
  yield finishTranscript(
    {
      id: main ? sessionId : `${sessionId}/${agentId}`,
      messages,
      metadata,
      warnings,
      indexedMetadata: (at) =>
        replacements.length === 0
          ? {}
          : {
              compactions: replacements.map((r) => ({
                index: at(r.from + offset),
                ...(r.summary !== undefined ? { summaryIndex: at(r.summary + offset) } : {}),
                ...(r.kind === 'clear' ? { cleared: true } : r.kind === 'undo' ? { revert: true } : {}),
                ...(r.tokensBefore !== undefined ? { preTokens: r.tokensBefore } : {}),
                replacementFrom: at(r.from + offset),
                replacementTo: at(r.to + offset),
              })),
            },
    },
    first,
    units,
  );
}

/**
 * Whether a JSON Lines record is a Kimi Code agent record: its journal header (`protocol_version` and `created_at`, where
 * Kimi CLI's wire header has the version alone), or a `{type: "<area>.<event>", ...payload, time}` record with its time
 * in milliseconds.
 */
export function isKimiCodeRecord(value: unknown): value is Record<string, unknown> {
  if (!isObject(value) || typeof value.type !== 'string') return false;
  if (value.type === 'metadata') return typeof value.protocol_version === 'string' && typeof value.created_at === 'number';
  return /^[a-z_]+\.[a-z_]+$/i.test(value.type) && typeof value.time === 'number';
}

/** A record the reader takes: any `{type}` object (some, such as `forked`, carry no time). */
function isRecordOfLog(value: unknown): value is Record<string, unknown> {
  return isObject(value) && typeof value.type === 'string';
}

/** Whether a whole-file JSON document is a Kimi Code session's `state.json` (session-store.ts: its agents by id). */
export function isKimiCodeStateSignature(file: string, sig: JsonSignature): boolean {
  return sig.root === 'object' && /(^|[\\/])state\.json$/.test(file) && sig.keys.includes('agents') && sig.keys.includes('createdAt');
}
