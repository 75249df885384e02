import { access, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Message } from '../model/message.js';
import { addAssistantBlock, assistantFromBlocks, emptyAssistantBlocks, userTurnMessages } from './_anthropic-blocks.js';
import { baseName, finishTranscript, isObject, skippedItem } from './_items.js';
import type { JsonSignature } from './_json-peek.js';
import { acceptRecords, readRecords } from './_records.js';
import type { InputItem, ReadOptions } from './types.js';

/**
 * Factory Droid sessions (`~/.factory/sessions/<cwd with / as ->/<uuid>.jsonl`, with `<uuid>.settings.json` beside
 * it). Droid is not open source: the shapes are those its peers read (ccusage `rust/crates/ccusage/src/adapter/droid/`,
 * tokscale `packages/core/src/sessions/droid.rs`, agent-sessions `DroidSessionParser.swift`), see
 * test/fixtures/droid/README.md. One transcript per session file, id the `session_start` record's `id` (else the file
 * name); each line a unit.
 * - `{type: "session_start", id, title, sessionTitle, owner, version, cwd}` -> metadata; `{type: "message", id,
 *   timestamp, parentId?, message: {role, content: [blocks]}}` -> messages: an assistant record's Anthropic blocks
 *   (`text`, `thinking`, `tool_use`) one assistant message, a user record's `tool_result` blocks `tool` messages and
 *   its other blocks a user message after them. `compaction_state` (Droid's own compaction, as public Droid session
 *   readers capture it) -> the summary as the user message Droid sends, marked `is_compact_summary`, listed in
 *   metadata.compactions with the first message it kept (after its `anchorMessage`). Other record types are skipped as
 *   `record:<type>`.
 * - Usage: Droid records none per call. `<uuid>.settings.json` holds the session's totals (`tokenUsage {inputTokens,
 *   outputTokens, cacheCreationTokens, cacheReadTokens, thinkingTokens}`, `model`, `providerLock`): kept as
 *   metadata.sessionUsage (model/recorded.ts `sessionTotals`), never spread over the replies. Read alone, that file's one
 *   unit is skipped as `record:droid/settings` when its session file is beside it.
 */
export async function* readDroid(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  if (/\.settings\.json$/i.test(file)) {
    yield* readSettingsAlone(file, options);
    return;
  }
  const builder = new SessionBuilder();
  const { first, units } = yield* acceptRecords(readRecords(file, { ...options, layout: 'jsonl' }), ({ value }) => builder.accept(value));
  if (!first) return;
  const metadata: Record<string, unknown> = { source: { format: 'droid', file }, ...builder.metadata };
  const settings = await readSettings(settingsFileOf(file));
  if (settings) Object.assign(metadata, settingsMetadata(settings));
  const id = typeof builder.metadata.sessionId === 'string' ? builder.metadata.sessionId : baseName(file);
  const compactions = builder.compactions;
  const indexedMetadata = (at: (index: number) => number) =>
    compactions.length === 0
      ? {}
      : {
          compactions: compactions.map((c) => ({
            ...c,
            summaryIndex: at(c.summaryIndex),
            ...(c.keptFromIndex !== undefined ? { keptFromIndex: at(c.keptFromIndex) } : {}),
          })),
        };
  yield finishTranscript({ id, messages: builder.messages, metadata, indexedMetadata }, first, units);
}

/** Whether a JSON Lines record is Droid's: its `session_start` record, or a `message` record with a `message` of a role and content. */
export function isDroidRecord(value: unknown): boolean {
  if (!isObject(value)) return false;
  if (value.type === 'session_start') return typeof value.id === 'string' && ('cwd' in value || 'sessionTitle' in value || 'owner' in value);
  if (value.type !== 'message' || typeof value.id !== 'string' || !isObject(value.message)) return false;
  return typeof value.message.role === 'string' && Array.isArray(value.message.content);
}

/** Whether a whole-file JSON document is a Droid session's settings: named `<id>.settings.json`, holding `tokenUsage` or `providerLock`. */
export function isDroidSettingsSignature(file: string, sig: JsonSignature): boolean {
  if (sig.root !== 'object' || !/\.settings\.json$/i.test(file)) return false;
  const keys = new Set(sig.keys);
  return keys.has('tokenUsage') || keys.has('providerLock');
}

const settingsFileOf = (file: string): string => join(dirname(file), `${basename(file).replace(/\.jsonl$/i, '')}.settings.json`);

async function* readSettingsAlone(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  const session = join(dirname(file), basename(file).replace(/\.settings\.json$/i, '.jsonl'));
  const beside = await access(session).then(
    () => true,
    () => false,
  );
  const at = { file, line: 1, byteOffset: 0 };
  if (beside) {
    yield skippedItem(at, 'record:droid/settings');
    return;
  }
  for await (const entry of readRecords(file, { ...options, layout: 'json' })) {
    if (entry.kind === 'item') yield entry.item;
    else
      yield {
        kind: 'error',
        record: {
          ...at,
          code: 'E_FORMAT',
          message: `${file}: a Droid session's settings are read with its session file, ${basename(session)}, which is not beside it`,
        },
      };
  }
}

async function readSettings(file: string): Promise<Record<string, unknown> | undefined> {
  try {
    const value: unknown = JSON.parse(await readFile(file, 'utf8'));
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

/** The settings' session totals as metadata.sessionUsage (Anthropic's names; thinking tokens are output Droid bills apart), and the model. */
function settingsMetadata(settings: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of ['model', 'reasoningEffort', 'providerLock', 'providerLockTimestamp', 'apiProviderLock', 'autonomyMode'] as const) {
    if (settings[key] !== undefined) out[key] = settings[key];
  }
  const u = isObject(settings.tokenUsage) ? settings.tokenUsage : undefined;
  if (u) {
    const usage = {
      input_tokens: num(u.inputTokens),
      cache_creation_input_tokens: num(u.cacheCreationTokens),
      cache_read_input_tokens: num(u.cacheReadTokens),
      output_tokens: num(u.outputTokens),
      thinking_tokens: num(u.thinkingTokens),
    };
    if (Object.values(usage).some((n) => n > 0)) out.sessionUsage = { ...(typeof settings.model === 'string' ? { model: settings.model } : {}), usage };
  }
  return out;
}

type Accepted = { kind: 'kept' } | { kind: 'skipped'; reason: string } | { kind: 'error'; message: string };

/** How Droid hands its summary to the model after a compaction (the user message a captured session shows it sent). */
const SUMMARY_PREFIX = 'A previous instance of Droid has summarized the conversation thus far as follows:\n\n<summary>\n';
const SUMMARY_SUFFIX =
  '\n</summary>\n\nIMPORTANT: This summary was created by a previous instance of Droid. Files referenced in the summary may not be available until you explicitly view them again.';

/** A compaction in metadata.compactions: its summary's message, the first message it kept (after its anchor), what it removed. */
interface DroidCompaction {
  summaryIndex: number;
  keptFromIndex?: number;
  removedCount?: number;
  summaryTokens?: number;
}

class SessionBuilder {
  readonly messages: Message[] = [];
  readonly metadata: Record<string, unknown> = {};
  readonly compactions: DroidCompaction[] = [];

  /**
   * `compaction_state {summaryText, summaryTokens, summaryKind, anchorMessage?: {id, index}, removedCount, systemInfoText?}`:
   * the context becomes the summary, as the user message Droid sends (with the environment reminder it re-sends), then
   * the messages after the anchor (an automatic compaction inside the session; `/compress` starts a new session whose
   * file opens with the record and no anchor: the summary alone).
   */
  private compaction(value: Record<string, unknown>): Accepted {
    const text = `${SUMMARY_PREFIX}${value.summaryText as string}${SUMMARY_SUFFIX}`;
    const parts = [
      { type: 'text' as const, text },
      ...(typeof value.systemInfoText === 'string' ? [{ type: 'text' as const, text: value.systemInfoText }] : []),
    ];
    const summary: Message = { role: 'user', content: parts.length === 1 ? text : parts, is_compact_summary: true };
    if (typeof value.timestamp === 'string') summary.timestamp = value.timestamp;
    const c: DroidCompaction = { summaryIndex: this.messages.length };
    const anchor = isObject(value.anchorMessage) && typeof value.anchorMessage.id === 'string' ? value.anchorMessage.id : undefined;
    if (anchor !== undefined) {
      let last = -1;
      this.messages.forEach((m, i) => {
        if ((m as { droid_id?: unknown }).droid_id === anchor) last = i;
      });
      if (last >= 0) c.keptFromIndex = last + 1;
    }
    if (typeof value.removedCount === 'number') c.removedCount = value.removedCount;
    if (typeof value.summaryTokens === 'number') c.summaryTokens = value.summaryTokens;
    this.messages.push(summary);
    this.compactions.push(c);
    return { kind: 'kept' };
  }

  accept(value: unknown): Accepted {
    if (!isObject(value) || typeof value.type !== 'string') return { kind: 'error', message: 'expected a Droid record (an object with a type)' };
    if (value.type === 'session_start') {
      if (typeof value.id === 'string') this.metadata.sessionId = value.id;
      for (const key of ['title', 'sessionTitle', 'owner', 'version', 'cwd'] as const) if (value[key] !== undefined) this.metadata[key] = value[key];
      return { kind: 'kept' };
    }
    if (value.type === 'compaction_state' && typeof value.summaryText === 'string') return this.compaction(value);
    if (value.type !== 'message') return { kind: 'skipped', reason: `record:${value.type}` };
    const m = isObject(value.message) ? value.message : undefined;
    if (!m || (m.role !== 'user' && m.role !== 'assistant')) return { kind: 'error', message: 'message: expected role "user" or "assistant"' };
    const extra: Record<string, unknown> = {};
    if (typeof value.timestamp === 'string') extra.timestamp = value.timestamp;
    if (typeof value.id === 'string') extra.droid_id = value.id;
    if (m.role === 'assistant') {
      if (!Array.isArray(m.content)) return { kind: 'error', message: 'message.content: expected a list of blocks' };
      const blocks = emptyAssistantBlocks();
      for (const block of m.content) addAssistantBlock(blocks, block);
      this.messages.push(assistantFromBlocks(blocks, extra));
      return { kind: 'kept' };
    }
    if (typeof m.content !== 'string' && !Array.isArray(m.content)) return { kind: 'error', message: 'message.content: expected a string or a list of blocks' };
    const { tools, user } = userTurnMessages(m.content, extra);
    this.messages.push(...tools, ...(user ? [user] : []));
    return { kind: 'kept' };
  }
}
