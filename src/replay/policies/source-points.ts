import { parseArguments } from '../../io/canonical-json.js';
import { contentText } from '../../model/content.js';
import { type Message, isRole } from '../../model/message.js';
import type { Transcript } from '../../model/transcript.js';
import { collapseWhitespace } from '../../retention/normalize.js';
import { type RecordedCall, callOfUsage, callThread, compactionRecords, isModelCall, isSourceSummary } from '../../model/recorded.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What marked a compaction point in the source. */
export type SourcePointKind =
  /** Claude Code's `compact_boundary` (auto or manual), from `metadata.compactions`. */
  | 'boundary'
  /** Codex's `compacted` record or pi's `compaction` entry (the summary is in the transcript), from `metadata.compactions`. */
  | 'compacted'
  /** Codex's encrypted `compaction` item: the point is known, what it kept is not. */
  | 'encrypted'
  /** A `/compact` command the user typed (Claude Code's `<command-name>/compact</command-name>`, or plain text). */
  | 'command'
  /** The agent's own Compact tool (J-CLI): a tool call named `Compact`, whose `focus` argument is the focus. */
  | 'tool'
  /**
   * Old tool results cleared with no record of it (Claude Code 2.1.2-2.1.3's microcompact, `unlogged_microcompact` on
   * the reply, read from the record's fall): the results are cleared until the prompt is the call's recorded one.
   */
  | 'microcompact'
  /**
   * A range of the history deleted from what is sent (Cline's truncation, with nothing in its place; Roo Code's sliding
   * window, its marker in place, written by no model call), from `metadata.compactions`.
   */
  | 'truncation';

/** A place where the source compacted, or was asked to: the compaction happens before model call `call`. */
export interface SourcePoint {
  /** 0-based ordinal of the model call (assistant message) before which the compaction happens. */
  call: number;
  /** Index of that assistant message in the transcript. */
  callIndex: number;
  /** The first message index of what the source kept after compacting (the boundary, the summary, or `callIndex`). */
  index: number;
  kinds: SourcePointKind[];
  /** The focus the user or the agent gave (`/compact TEXT`, the Compact tool's `focus`). */
  focus?: string;
  /** The summary the source put in place of the context (Claude Code, Codex `compacted`), when recorded. */
  summary?: Message;
  /** The messages the source kept as the whole context from here on (Codex's `replacement_history`), when recorded. */
  kept?: Message[];
  /**
   * The first message of the history the source kept after its summary (pi's `firstKeptEntryId`): the context becomes
   * the summary, then the messages from this index on.
   */
  keptFrom?: number;
  /** The source's summary exists but cannot be read (Codex's encrypted `compaction` item): it is named, never scored. */
  opaque?: true;
  /** The recorded usage of the call that wrote the summary (Claude Code's compaction agent), when logged. */
  summaryCall?: RecordedCall;
  /** The transcript that logs the summary call as its own (Claude Code's compaction agent's file), when there is one. */
  summaryCallTranscriptId?: string;
  /**
   * A deleted range (Cline's truncation): the context keeps its messages before this index (the head) and those from
   * `keptFrom` on, and nothing takes the place of the range. With a summary (Roo Code's condense v1 and sliding-window
   * marker): the head, then the summary, then the messages from `keptFrom` on.
   */
  keptHead?: number;
  /** Texts sent in place of parts of the kept messages (Cline's file-read notices), by message index. */
  rewrites?: SourceRewrite[];
}

/** A text the source sent in place of a kept message's part (`part` -1: its whole content, or a tool result's first text). */
export interface SourceRewrite {
  index: number;
  part: number;
  text: string;
}

/** A truncation record's rewrites as message positions; a tool result's is found by its call id. */
function rewritesOf(raw: unknown, messages: readonly Message[]): SourceRewrite[] {
  if (!Array.isArray(raw)) return [];
  const n = messages.length;
  return raw.flatMap((r): SourceRewrite[] => {
    if (r === null || typeof r !== 'object' || typeof (r as { text?: unknown }).text !== 'string') return [];
    const { index, part, callId, text } = r as { index?: unknown; part?: unknown; callId?: unknown; text: string };
    if (typeof callId === 'string') {
      const at = messages.findIndex((m) => isRole(m, 'tool') && m.tool_call_id === callId);
      return at < 0 ? [] : [{ index: at, part: -1, text }];
    }
    return isIndex(index, n - 1) && typeof part === 'number' && Number.isInteger(part) && part >= -1 ? [{ index, part, text }] : [];
  });
}

const COMMAND = /<command-name>\s*\/compact\s*<\/command-name>/;
const COMMAND_ARGS = /<command-args>([\s\S]*?)<\/command-args>/;
const TYPED = /^\/compact(?:\s+([\s\S]*))?$/;

const isIndex = (v: unknown, n: number): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= n;

/** The focus of a `/compact` command, or undefined for a message that is not one (null: a command without focus). */
function compactCommand(m: Message): string | null | undefined {
  if (!isRole(m, 'user')) return undefined;
  const raw = contentText(m.content);
  if (COMMAND.test(raw)) return collapseWhitespace(COMMAND_ARGS.exec(raw)?.[1] ?? '') || null;
  const typed = TYPED.exec(raw.trim());
  if (!typed) return undefined;
  return collapseWhitespace(typed[1] ?? '') || null;
}

/**
 * The transcript's compaction points, in call order: Claude Code's compact boundaries and Codex's `compacted` and
 * encrypted `compaction` records (listed by the adapters in `metadata.compactions`), `/compact` commands, and calls of
 * an agent's Compact tool (J-CLI). Each happens before the first model call at or after it; marks that fall before the
 * same call are one point (Claude Code logs the `/compact` command after the boundary it caused). A mark after the
 * last call is dropped: no call is left to compact for.
 */
export function sourceCompactionPoints(transcript: Transcript): SourcePoint[] {
  const messages = transcript.messages;
  const n = messages.length;
  const marks: {
    at: number;
    kind: SourcePointKind;
    /** The branch the compaction is on (see callThread): it comes before that branch's next call. */
    thread?: number;
    focus?: string;
    summary?: Message;
    kept?: Message[];
    keptFrom?: number;
    keptHead?: number;
    rewrites?: SourceRewrite[];
    opaque?: true;
    summaryCall?: RecordedCall;
    summaryCallTranscriptId?: string;
  }[] = [];
  for (const raw of compactionRecords(transcript)) {
    if (raw.truncation === true && raw.summaryIndex === undefined) {
      if (isIndex(raw.index, n) && isIndex(raw.keptHeadTo, n) && isIndex(raw.keptFromIndex, n) && raw.keptHeadTo <= raw.keptFromIndex)
        marks.push({ at: raw.index, kind: 'truncation', keptHead: raw.keptHeadTo, keptFrom: raw.keptFromIndex, rewrites: rewritesOf(raw.rewrites, messages) });
      continue;
    }
    const summary = isIndex(raw.summaryIndex, n - 1) ? messages[raw.summaryIndex] : undefined;
    // A summary written ahead of the messages it kept (Roo Code's condense v1, its sliding window's marker) applies
    // from the request the record places after it.
    const placed = summary && raw.replacementFrom === undefined && isIndex(raw.index, n) && raw.index > (raw.summaryIndex as number) ? raw.index : undefined;
    const at = [raw.boundaryIndex, placed, raw.summaryIndex, raw.index].find((v) => isIndex(v, n));
    if (at === undefined) continue;
    const kind: SourcePointKind =
      raw.truncation === true
        ? 'truncation'
        : raw.encrypted === true
          ? 'encrypted'
          : raw.boundaryIndex !== undefined || raw.trigger !== undefined
            ? 'boundary'
            : 'compacted';
    const from = raw.replacementFrom;
    const to = raw.replacementTo;
    // An empty replacement is kept only where the source says it cleared the context (else it is no replacement).
    const kept = isIndex(from, n) && isIndex(to, n) && (to > from || (to === from && raw.cleared === true)) ? messages.slice(from, to) : undefined;
    const opaque = raw.encrypted === true || raw.encryptedSummary === true;
    const keptFrom = summary && isIndex(raw.keptFromIndex, n) && raw.keptFromIndex <= (at as number) ? raw.keptFromIndex : undefined;
    const keptHead = summary && isIndex(raw.keptHeadTo, n) && raw.keptHeadTo <= (raw.summaryIndex as number) ? raw.keptHeadTo : undefined;
    marks.push({
      at: at as number,
      kind,
      ...(summary ? { summary, thread: callThread(summary) } : {}),
      ...(isObject(raw.summaryUsage) ? { summaryCall: callOfUsage(raw.summaryUsage) } : {}),
      ...(isObject(raw.summaryUsage) && typeof raw.summaryTranscriptId === 'string' ? { summaryCallTranscriptId: raw.summaryTranscriptId } : {}),
      ...(kept ? { kept } : {}),
      ...(keptFrom !== undefined ? { keptFrom } : {}),
      ...(keptHead !== undefined ? { keptHead } : {}),
      ...(opaque ? { opaque: true as const } : {}),
    });
  }
  messages.forEach((m, i) => {
    if (m.unlogged_microcompact === true) marks.push({ at: i, kind: 'microcompact' });
    const focus = compactCommand(m);
    if (focus !== undefined) marks.push({ at: i, kind: 'command', ...(focus === null ? {} : { focus }) });
    if (!isRole(m, 'assistant')) return;
    for (const call of m.tool_calls ?? []) {
      if (call.function.name.toLowerCase() !== 'compact') continue;
      const args = parseArguments(call.function.arguments);
      const focus = typeof args?.focus === 'string' && args.focus.trim() !== '' ? collapseWhitespace(args.focus) : undefined;
      // The compaction runs once the tool has answered: before the next call.
      marks.push({ at: i + 1, kind: 'tool', ...(focus ? { focus } : {}) });
    }
  });

  // Ordinal of each assistant message among the calls. A source's summary messages (a replacement history repeats
  // assistant replies), a client's synthetic replies and requests the record does not price are no model calls: the
  // replay leaves them out too.
  const isCall = (m: Message) => isModelCall(m) && !isSourceSummary(m);
  const callOf = new Map<number, number>();
  let calls = 0;
  messages.forEach((m, i) => {
    if (isCall(m)) callOf.set(i, calls++);
  });
  // In a session whose branches run at once, another branch's calls are logged between a compaction and its own
  // branch's next call: a mark is of the branch its message is on.
  const nextCall = (at: number, thread = at < n ? callThread(messages[at]) : 0): number | undefined => {
    for (let i = at; i < n; i++) if (isCall(messages[i]) && callThread(messages[i]) === thread) return i;
    return undefined;
  };
  const byCall = new Map<number, SourcePoint>();
  for (const mark of marks.sort((a, b) => a.at - b.at)) {
    const callIndex = nextCall(mark.at, mark.thread);
    if (callIndex === undefined) continue;
    let point = byCall.get(callIndex);
    if (!point) byCall.set(callIndex, (point = { call: callOf.get(callIndex) as number, callIndex, index: mark.at, kinds: [] }));
    point.index = Math.min(point.index, mark.at);
    if (!point.kinds.includes(mark.kind)) point.kinds.push(mark.kind);
    if (mark.focus !== undefined) point.focus ??= mark.focus;
    if (mark.summary) point.summary ??= mark.summary;
    if (mark.kept) point.kept ??= mark.kept;
    if (mark.keptFrom !== undefined) point.keptFrom ??= mark.keptFrom;
    if (mark.keptHead !== undefined) point.keptHead ??= mark.keptHead;
    if (mark.rewrites) point.rewrites ??= mark.rewrites;
    if (mark.opaque) point.opaque = true;
    if (mark.summaryCall && !point.summaryCall) {
      point.summaryCall = mark.summaryCall;
      if (mark.summaryCallTranscriptId !== undefined) point.summaryCallTranscriptId = mark.summaryCallTranscriptId;
    }
  }
  return [...byCall.values()].sort((a, b) => a.call - b.call);
}
