import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Message } from '../model/message.js';
import { addAssistantBlock, assistantFromBlocks, emptyAssistantBlocks, userTurnMessages } from './_anthropic-blocks.js';
import { keptHeadLength, parseCompactionState, type SdkCompactionState, staleReason } from './_cline-sdk-compaction.js';
import { readJson } from './_cline-workspace.js';
import { type DraftTranscript, baseName, finishTranscript, isObject } from './_items.js';
import type { JsonSignature } from './_json-peek.js';
import { acceptRecords, keptUnless, readRecords } from './_records.js';
import type { InputItem, ReadOptions } from './types.js';

/**
 * Cline's sessions since its SDK (`@cline/core`) took over from the extension's task folders: one
 * `<sessions>/<id>/<id>.messages.json` per session, a subagent's `<sessions>/<root id>/<agent id>.messages.json`
 * beside it (cline sdk/packages/core/src/services/session-artifacts.ts; the shape is `buildMessagesFilePayload`,
 * session-data.ts, documented in sdk/packages/core/docs/messages-contract-v1.md). One transcript per file (one unit),
 * id the file's `sessionId`.
 * - `messages[]` are Anthropic messages (`text`, `thinking`, `tool_use`, `tool_result` blocks) with Cline's fields:
 *   `modelInfo {id, provider, family}` -> `model`, `ts` stays on the message, and `file` blocks are sent as
 *   `<file_content path="...">` text (sdk/packages/shared/src/llms/ai-sdk-format.ts, prompt/format.ts).
 * - `metrics {inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, cost}` is the usage of the model call that
 *   wrote the message (agent-runtime.ts usageDelta). `inputTokens` is the AI SDK's total input, cache reads and writes
 *   included (llms/src/providers/ai-sdk.ts prices `inputTokens - cacheReadTokens - cacheWriteTokens` as uncached):
 *   kept in Anthropic's names with the cache taken out. `cost` is Cline's own, kept as the reply's `cost`. A reply
 *   without metrics (an earlier message of a turn whose last one carries the turn's usage) is `unpriced_request`.
 * - `system_prompt`, when written, is the first message (system).
 * - Context management (sdk/packages/core/src/extensions/context/compaction.ts) never rewrites this file: the working
 *   context after a compaction is kept apart in `<id>.compaction.json` (see _cline-sdk-compaction.ts). Its messages go
 *   into the transcript before the first message they did not replace, marked `is_compact_summary` with no usage, and
 *   `metadata.compactions` gets one truncation point: the messages before `keptHeadTo` (the replaced messages the state
 *   kept as written) and those from `keptFromIndex` (the state's own messages, then the rest of the transcript) are
 *   what Cline sent from there on. A state the SDK would not project (its messages no longer match) is not used; a
 *   warning says so.
 */
export async function* readClineSdk(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  let session: Record<string, unknown> | undefined;
  const { first, units } = yield* acceptRecords(readRecords(file, { ...options, layout: 'json' }), ({ value }) => {
    // The session's compaction state and manifest are read with its messages file.
    if (isObject(value) && value.source_message_count !== undefined && value.sessionId === undefined)
      return { kind: 'skipped', reason: 'record:cline-sdk/compaction' };
    if (isObject(value) && value.session_id !== undefined && value.messages_path !== undefined && value.messages === undefined)
      return { kind: 'skipped', reason: 'record:cline-sdk/manifest' };
    const problem = sessionProblem(value);
    if (problem === undefined) session = value as Record<string, unknown>;
    return keptUnless(problem);
  });
  if (!first || !session) return;
  const source = session.messages as Record<string, unknown>[];
  const id = typeof session.sessionId === 'string' ? session.sessionId : baseName(file);
  const metadata: Record<string, unknown> = { source: { format: 'cline-sdk', file }, sessionId: id };
  for (const key of ['agent', 'taskType', 'updated_at'] as const) if (typeof session[key] === 'string') metadata[key] = session[key];
  const warnings: string[] = [];
  const state = await compactionState(file, id, source, metadata, warnings);
  const builder = new SessionBuilder();
  if (typeof session.system_prompt === 'string') builder.messages.push({ role: 'system', content: session.system_prompt });
  const head = state ? keptHeadLength(state, source) : 0;
  let summaryStart = -1;
  for (let element = 0; element <= source.length; element++) {
    if (state && element === state.sourceMessageCount) {
      summaryStart = builder.messages.length;
      for (const m of state.messages.slice(head)) builder.add(m, true);
    }
    if (element < source.length) builder.starts[element] = builder.add(source[element], false);
  }
  if (builder.models.length > 0) metadata.models = builder.models;
  const keptHead = head === 0 ? 0 : builder.starts[head];
  yield finishTranscript(
    {
      id,
      messages: builder.messages,
      metadata,
      warnings,
      indexedMetadata: (to) =>
        summaryStart < 0
          ? {}
          : {
              compactions: [
                { index: to(summaryStart), keptHeadTo: keptHead === 0 ? 0 : to(keptHead - 1) + 1, keptFromIndex: to(summaryStart), truncation: true },
              ],
            },
    } satisfies DraftTranscript,
    first,
    units,
  );
}

/** The session's compaction sidecar when the SDK would project it onto these messages; how it was found goes to metadata.clineContext. */
async function compactionState(
  file: string,
  id: string,
  source: readonly unknown[],
  metadata: Record<string, unknown>,
  warnings: string[],
): Promise<SdkCompactionState | undefined> {
  const path = join(dirname(file), `${id}.compaction.json`);
  const raw = await readJson(path);
  if (raw === undefined && !existsSync(path)) return undefined;
  const parsed = raw === undefined ? 'not JSON, or over 64 MiB' : parseCompactionState(raw);
  const problem = typeof parsed === 'string' ? parsed : staleReason(parsed, source);
  if (problem !== undefined || typeof parsed === 'string') {
    warnings.push(`${basename(path)} not used: ${problem}`);
    metadata.clineContext = { points: 'recorded', cuts: 0, compactionNotUsed: problem };
    return undefined;
  }
  metadata.clineContext = {
    points: 'recorded',
    cuts: 1,
    replaced: parsed.sourceMessageCount,
    workingMessages: parsed.messages.length,
    ...(parsed.updatedAt === undefined ? {} : { compactedAt: parsed.updatedAt }),
  };
  return parsed;
}

/** Why a parsed document is not an SDK messages file (version 1), or undefined when it is one. */
function sessionProblem(value: unknown): string | undefined {
  if (!isObject(value)) return "expected Cline's session messages (an object)";
  if (value.version !== 1) return `version ${JSON.stringify(value.version)}: only version 1 of Cline's messages file is known`;
  if (!Array.isArray(value.messages)) return 'messages: expected a list';
  for (const [i, m] of value.messages.entries()) {
    if (!isObject(m) || (m.role !== 'user' && m.role !== 'assistant')) return `messages[${i}]: expected role "user" or "assistant"`;
    if (typeof m.content !== 'string' && !Array.isArray(m.content)) return `messages[${i}]: content: expected a string or a list of blocks`;
  }
  return undefined;
}

/**
 * Whether the start of a whole-file JSON document is an SDK messages file: `version`, `sessionId` and `messages` at
 * the top, with the contract's `updated_at` or `agent`.
 */
export function isClineSdkSessionSignature(sig: JsonSignature): boolean {
  const keys = new Set(sig.keys);
  return sig.root === 'object' && keys.has('version') && keys.has('sessionId') && keys.has('messages') && (keys.has('updated_at') || keys.has('agent'));
}

/** Whether it is a compaction sidecar (`SessionCompactionStateSchema`): `version`, `source_message_count` and `messages`. */
export function isClineSdkCompactionSignature(sig: JsonSignature): boolean {
  const keys = new Set(sig.keys);
  return sig.root === 'object' && keys.has('version') && keys.has('source_message_count') && keys.has('messages');
}

/** Whether it is a session manifest (`SessionManifestSchema`, `<id>.json`): `session_id`, `started_at` and `messages_path`. */
export function isClineSdkManifestSignature(sig: JsonSignature): boolean {
  const keys = new Set(sig.keys);
  return sig.root === 'object' && keys.has('session_id') && keys.has('started_at') && keys.has('messages_path');
}

/** The SDK's `file` block, as its providers send it (formatFileContentBlock). */
function fileBlockText(block: Record<string, unknown>): Record<string, unknown> {
  const path = typeof block.path === 'string' ? block.path : '';
  const content = typeof block.content === 'string' ? block.content : '';
  return { type: 'text', text: `<file_content path="${path}">\n${content}\n</file_content>` };
}

class SessionBuilder {
  readonly messages: Message[] = [];
  readonly models: string[] = [];
  /** The index in `messages` of each transcript element's first message. */
  readonly starts: number[] = [];

  /** Adds one SDK message (a working-context one as the source's summary, without usage); returns where it starts. */
  add(value: Record<string, unknown>, working: boolean): number {
    const start = this.messages.length;
    const extra: Record<string, unknown> = {};
    if (typeof value.ts === 'number') extra.ts = value.ts;
    if (working) extra.is_compact_summary = true;
    const blocks = typeof value.content === 'string' ? [value.content] : (value.content as unknown[]);
    if (value.role === 'assistant') {
      const into = emptyAssistantBlocks();
      for (const block of blocks) addAssistantBlock(into, block);
      const model = isObject(value.modelInfo) && typeof value.modelInfo.id === 'string' ? value.modelInfo.id : undefined;
      if (model !== undefined) {
        extra.model = model;
        if (!working && !this.models.includes(model)) this.models.push(model);
      }
      const metrics = isObject(value.metrics) ? value.metrics : undefined;
      if (!working) {
        if (metrics) {
          extra.usage = usageOfMetrics(metrics);
          if (typeof metrics.cost === 'number') extra.cost = metrics.cost;
        } else extra.unpriced_request = true;
      }
      this.messages.push(assistantFromBlocks(into, extra));
      return start;
    }
    const content = typeof value.content === 'string' ? value.content : blocks.map((b) => (isObject(b) && b.type === 'file' ? fileBlockText(b) : b));
    const { tools, user } = userTurnMessages(content, extra);
    this.messages.push(...tools);
    if (user) this.messages.push(user);
    return start;
  }
}

/** The SDK's per-call metrics in Anthropic's names: its `inputTokens` holds the cache, taken out here. */
export function usageOfMetrics(metrics: Record<string, unknown>): Record<string, number> {
  const input = num(metrics.inputTokens);
  const reads = num(metrics.cacheReadTokens);
  const writes = num(metrics.cacheWriteTokens);
  return {
    input_tokens: Math.max(0, input - reads - writes),
    cache_creation_input_tokens: writes,
    cache_read_input_tokens: reads,
    output_tokens: num(metrics.outputTokens),
  };
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
