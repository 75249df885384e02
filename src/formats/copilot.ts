import type { Message } from '../model/message.js';
import { CopilotSession } from './_copilot-events.js';
import { sessionUsageMetadata } from './_copilot-usage.js';
import { baseName, finishTranscript, isObject } from './_items.js';
import type { JsonSignature } from './_json-peek.js';
import { acceptRecords, readRecords } from './_records.js';
import type { InputItem, ReadOptions } from './types.js';

export { isCopilotEvent, isCopilotEventType } from './_copilot-events.js';

/**
 * GitHub Copilot CLI sessions. Copilot CLI is not open source; the event shapes are those of its SDK's generated
 * types (github/copilot-sdk nodejs/src/generated/session-events.ts), the reports in its tracker and its peers' readers
 * (see test/fixtures/copilot/README.md). One transcript per session file, id the `session.start`'s `sessionId` (else
 * the file or folder name); each line a unit.
 * - `session-state/<id>/events.jsonl` (and late 2025 `session-state/<id>.jsonl`): events `{type, data, id, parentId,
 *   timestamp, agentId?}`. `system.message` -> a system (or developer) message; `user.message` -> the user text the
 *   model was sent (`transformedContent`, else `content`); `assistant.message` -> a reply (`content`, `toolRequests` ->
 *   tool_calls, `reasoningText`, else the `assistant.reasoning` events before it -> reasoning_content, never sent
 *   again; a later chunk of the same `apiCallId` marked `continues_call`); `tool.execution_complete` -> the tool result
 *   (`result.content`, else `error.message`; `is_error` when not `success`); a `tool.execution_start` whose call no
 *   reply named joins the last reply's calls, the others are skipped. A subagent's events (`agentId`, formerly
 *   `parentToolCallId`) are skipped as `record:subagent/<type>`, other events as `record:<type>`.
 * - `session.compaction_complete` with a summary -> a user message marked `is_compact_summary`, listed in
 *   metadata.compactions with `preTokens` (`preCompactionTokens`, else the `compaction_start`'s `currentTokens`),
 *   `compactionTrigger` and `messagesRemoved`; a failed compaction is skipped as `record:session.compaction_complete/no-summary`.
 *   `session.context_cleared` (`/clear`) is listed there as a context started over empty (`cleared`).
 * - Usage: each reply's `outputTokens` is kept on it (`recorded_output_tokens`); input and cache are recorded only per
 *   model per run, in the `session.shutdown` that ends the run (`modelMetrics`), and a resumed session has one run per
 *   start or resume. The session's usage is the sum over its runs, kept as metadata.sessionUsage (model/recorded.ts
 *   `sessionTotals`), never spread over the replies; see `_copilot-usage.ts`.
 * - Legacy `history-session-state/session_*.json`: `{sessionId, startTime, chatMessages, timeline}`, `chatMessages` the
 *   OpenAI chat messages Copilot sent, read as they are (one unit, no usage).
 */
export async function* readCopilot(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  if (!/\.jsonl$/i.test(file) && options.layout !== 'jsonl') {
    yield* readLegacy(file, options);
    return;
  }
  const session = new CopilotSession();
  const { first, units } = yield* acceptRecords(readRecords(file, { ...options, layout: 'jsonl' }), ({ value }) => session.accept(value));
  if (!first) return;
  session.finish();
  const metadata: Record<string, unknown> = { source: { format: 'copilot', file }, ...session.metadata, ...sessionUsageMetadata(session.runs) };
  const compactions = session.compactions;
  const indexedMetadata = (at: (index: number) => number) =>
    compactions.length === 0
      ? {}
      : {
          compactions: compactions.map(({ summaryIndex, clearedAt, ...c }) =>
            clearedAt !== undefined
              ? { ...c, index: at(clearedAt), replacementFrom: at(clearedAt), replacementTo: at(clearedAt), cleared: true }
              : { ...c, index: at(summaryIndex as number), summaryIndex: at(summaryIndex as number) },
          ),
        };
  yield finishTranscript({ id: sessionIdOf(file, session.metadata.sessionId), messages: session.messages, metadata, indexedMetadata }, first, units);
}

/** The session's id: the one `session.start` recorded, else the name of its folder (`<id>/events.jsonl`) or file (`<id>.jsonl`). */
function sessionIdOf(file: string, recorded: unknown): string {
  if (typeof recorded === 'string' && recorded !== '') return recorded;
  const parts = file.split(/[\\/]/);
  return parts[parts.length - 1] === 'events.jsonl' && parts.length > 1 ? parts[parts.length - 2] : baseName(file);
}

async function* readLegacy(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  for await (const entry of readRecords(file, { ...options, layout: 'json' })) {
    if (entry.kind === 'item') {
      yield entry.item;
      continue;
    }
    const { value, at } = entry.record;
    if (!isObject(value) || !Array.isArray(value.chatMessages)) {
      yield { kind: 'error', record: { ...at, code: 'E_SCHEMA', message: 'chatMessages: expected a list of chat messages' } };
      continue;
    }
    const metadata: Record<string, unknown> = { source: { format: 'copilot', file }, layout: 'history-session-state' };
    for (const key of ['sessionId', 'startTime', 'endTime'] as const) if (value[key] !== undefined) metadata[key] = value[key];
    if (Array.isArray(value.timeline)) metadata.timelineEntries = value.timeline.length;
    const id = typeof value.sessionId === 'string' && value.sessionId !== '' ? value.sessionId : baseName(file);
    yield finishTranscript({ id, messages: value.chatMessages as Message[], metadata }, at, 1, 'chatMessages: ');
  }
}

/** Whether a whole-file JSON document is a legacy Copilot CLI session: `sessionId` and `chatMessages`, with `startTime` or `timeline`. */
export function isCopilotLegacySignature(sig: JsonSignature): boolean {
  const keys = new Set(sig.keys);
  return sig.root === 'object' && keys.has('sessionId') && keys.has('chatMessages') && (keys.has('startTime') || keys.has('timeline'));
}
