import type { ErrorCode } from '../errors.js';
import type { Message } from '../model/message.js';
import { parseTranscript } from '../model/parse.js';
import { renameDuplicateCallIds, repairPairing } from '../model/repair.js';
import type { ToolDef } from '../model/transcript.js';
import type { InputItem, SourcePosition } from './types.js';

export function errorItem(at: SourcePosition, code: ErrorCode, message: string, lines?: number): InputItem {
  const item: InputItem = { kind: 'error', record: { file: at.file, line: at.line, byteOffset: at.byteOffset, code, message } };
  if (lines !== undefined && lines !== 1) item.lines = lines;
  return item;
}

export function skippedItem(at: SourcePosition, reason: string): InputItem {
  return { kind: 'skipped', ...at, reason };
}

/** A transcript as an adapter assembled it, before the pairing repair and the schema check. */
export interface DraftTranscript {
  id: string;
  messages: Message[];
  tools?: ToolDef[];
  metadata?: Record<string, unknown>;
  /** Unknown top-level fields of the source record, kept on the transcript. */
  extra?: Record<string, unknown>;
  warnings?: string[];
  /** Repairs the adapter made itself, by kind. */
  repairs?: Record<string, number>;
  /**
   * Metadata that names message positions (compactions): computed after the pairing repair, which inserts, drops and
   * moves tool messages, through `at`, which maps an index in `messages` to the index of the same message after the
   * repair (an index of a tool message maps to the next message that is not one).
   */
  indexedMetadata?: (at: (index: number) => number) => Record<string, unknown>;
}

/**
 * Turns a draft into a transcript item: validates it against the canonical schema (a draft that does not validate
 * becomes an E_SCHEMA error naming the path, prefixed by `where`), gives reused tool-call ids a unique suffix
 * (`renameDuplicateCallIds`), then repairs tool pairing the documented way (`repairPairing`); the orphan and duplicate
 * results it drops are kept in `metadata.droppedToolResults`, never lost.
 */
export function finishTranscript(draft: DraftTranscript, at: SourcePosition, lines: number, where = ''): InputItem {
  const candidate: Record<string, unknown> = { id: draft.id, messages: draft.messages };
  if (draft.tools !== undefined) candidate.tools = draft.tools;
  if (draft.metadata !== undefined) candidate.metadata = draft.metadata;
  for (const [key, value] of Object.entries(draft.extra ?? {})) if (!(key in candidate)) candidate[key] = value;
  const parsed = parseTranscript(candidate);
  if (!parsed.ok) return errorItem(at, 'E_SCHEMA', `${where}${parsed.error.message}`, lines);
  const transcript = parsed.value.transcript;
  const unique = renameDuplicateCallIds(transcript.messages);
  const repaired = repairPairing(unique.messages);
  const repairs: Record<string, number> = { ...draft.repairs };
  if (unique.renamed > 0) repairs.duplicateCallIdRenamed = unique.renamed;
  for (const [kind, n] of Object.entries(repaired.repairs)) if (n > 0) repairs[kind] = (repairs[kind] ?? 0) + n;
  if (draft.indexedMetadata) transcript.metadata = { ...transcript.metadata, ...draft.indexedMetadata(indexMap(transcript.messages, repaired.messages)) };
  transcript.messages = repaired.messages;
  if (repaired.dropped.length > 0) transcript.metadata = { ...transcript.metadata, droppedToolResults: repaired.dropped };
  return { kind: 'transcript', ...at, transcript, lines, warnings: [...(draft.warnings ?? []), ...parsed.value.warnings], repairs };
}

/** `indexedMetadata` for sources whose compactions are known by their summary's position alone. */
export function summaryCompactions(summaries: readonly number[]): NonNullable<DraftTranscript['indexedMetadata']> {
  return (to) => (summaries.length === 0 ? {} : { compactions: summaries.map((i) => ({ summaryIndex: to(i) })) });
}

/**
 * Maps message indices across the pairing repair. The repair keeps every message that is not a tool message, in
 * order, so the k-th such message before is the k-th after.
 */
function indexMap(before: readonly Message[], after: readonly Message[]): (index: number) => number {
  const nonToolBefore: number[] = [];
  before.forEach((m, i) => m.role !== 'tool' && nonToolBefore.push(i));
  const nonToolAfter: number[] = [];
  after.forEach((m, i) => m.role !== 'tool' && nonToolAfter.push(i));
  return (index) => {
    let k = 0;
    while (k < nonToolBefore.length && nonToolBefore[k] < index) k++;
    return k < nonToolAfter.length ? nonToolAfter[k] : after.length;
  };
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The file name without directories and without its last extension: the base of derived transcript ids. */
export function baseName(file: string): string {
  const name = file.split(/[\\/]/).pop() ?? file;
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
}
