import { TcompactError } from '../errors.js';
import { errorItem, skippedItem } from './_items.js';
import { readJsonDocument, streamJsonArray } from './_json-stream.js';
import { peekJson } from './_json-peek.js';
import { lineItem, readJsonl } from './_jsonl.js';
import type { ErrorCode } from '../errors.js';
import type { InputItem, ReadOptions, SourcePosition } from './types.js';

/** One record of a file whose format holds one transcript per record (JSONL line, array element, or whole file). */
export interface SourceRecord {
  value: unknown;
  at: SourcePosition;
  /** `line N` for JSONL, `[i]` for an array element, empty for a whole-file object: prefixes error paths. */
  where: string;
  /** Index for derived ids: the line number (JSONL) or the element index (array); undefined for a whole file. */
  index?: number;
}

export type RecordEntry = { kind: 'record'; record: SourceRecord } | { kind: 'item'; item: InputItem };

function isJsonlPath(file: string): boolean {
  return /\.jsonl$/i.test(file);
}

/** Whether a file holds one record per line: as detection decided, else by its name. */
export function isJsonl(file: string, options: ReadOptions): boolean {
  return options.layout === undefined ? isJsonlPath(file) : options.layout === 'jsonl';
}

/**
 * The records of a file: the lines of a `.jsonl` file; otherwise the elements of a top-level JSON array (streamed)
 * or the single top-level object. Blank lines and unreadable lines or files come out as items.
 */
export async function* readRecords(file: string, options: ReadOptions): AsyncGenerator<RecordEntry> {
  if (isJsonl(file, options)) {
    for await (const entry of readJsonl(file, options)) {
      if (entry.kind !== 'value') yield { kind: 'item', item: lineItem(entry) };
      else yield { kind: 'record', record: { value: entry.value, at: entry.at, where: '', index: entry.at.line } };
    }
    return;
  }
  const whole: SourcePosition = { file, line: 1, byteOffset: 0 };
  try {
    const sig = await peekJson(file);
    if (sig.root === 'empty') return;
    if (sig.root !== 'array') {
      yield { kind: 'record', record: { value: await readJsonDocument(file, options.maxLineBytes), at: whole, where: '' } };
      return;
    }
  } catch (err) {
    yield { kind: 'item', item: fileError(whole, err) };
    return;
  }
  let next = 0;
  try {
    for await (const { index, value } of streamJsonArray(file)) {
      next = index + 1;
      yield { kind: 'record', record: { value, at: { ...whole, record: index }, where: `[${index}]: `, index } };
    }
  } catch (err) {
    yield { kind: 'item', item: fileError({ ...whole, record: next }, err) };
  }
}

/** An error that stopped reading a whole file (or the rest of it) as an item: its own code, E_IO, or E_JSON. */
export function fileError(at: SourcePosition, err: unknown, lines?: number): InputItem {
  if (TcompactError.isInstance(err)) return errorItem(at, err.code, err.message, lines);
  const e = err as NodeJS.ErrnoException;
  if (typeof e?.syscall === 'string') return errorItem(at, 'E_IO', e.message, lines);
  return errorItem(at, 'E_JSON', e?.message ?? String(err), lines);
}

/** What a source's builder made of one record: kept in the transcript, skipped with a reason, or refused. */
export type Accepted = { kind: 'kept' } | { kind: 'skipped'; reason: string } | { kind: 'error'; message: string; code?: ErrorCode };

/** A builder's answer of an error message, or undefined when it kept the record, as an {@link Accepted}. */
export function keptUnless(error: string | undefined): Accepted {
  return error === undefined ? { kind: 'kept' } : { kind: 'error', message: error };
}

/** The records a transcript was built from: where the first kept one sits, and how many input units were kept. */
export interface KeptRecords {
  first: SourcePosition | undefined;
  units: number;
}

/**
 * Feeds every record to `accept`, passing the reader's own items (bad lines, skipped lines) on. A refused record
 * becomes its error (`E_SCHEMA` unless the outcome names another code), its message prefixed with where the record
 * sits; a skipped one is counted as skipped. Returns what was kept, for the transcript that follows.
 */
export async function* acceptRecords(entries: AsyncIterable<RecordEntry>, accept: (record: SourceRecord) => Accepted): AsyncGenerator<InputItem, KeptRecords> {
  const kept: KeptRecords = { first: undefined, units: 0 };
  for await (const entry of entries) {
    if (entry.kind === 'item') {
      yield entry.item;
      continue;
    }
    const { at, where } = entry.record;
    const outcome = accept(entry.record);
    if (outcome.kind === 'error') yield errorItem(at, outcome.code ?? 'E_SCHEMA', `${where}${outcome.message}`);
    else if (outcome.kind === 'skipped') yield skippedItem(at, outcome.reason);
    else {
      kept.first ??= at;
      kept.units++;
    }
  }
  return kept;
}
