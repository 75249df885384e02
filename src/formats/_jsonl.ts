import type { ErrorInfo } from '../errors.js';
import { type RawLine, decodeLine, readLines } from '../io/line-reader.js';
import { errorItem, skippedItem } from './_items.js';
import type { InputItem, ReadOptions, SourcePosition } from './types.js';

type JsonlEntry =
  | { kind: 'value'; at: SourcePosition; value: unknown /** The line's decoded text, and the bytes it was decoded from. */; text: string; bytes: Buffer }
  | { kind: 'blank'; at: SourcePosition }
  | { kind: 'error'; at: SourcePosition; error: ErrorInfo };

/**
 * Streams a JSONL file as parsed values, one entry per line: blank lines, and lines that are too long, not UTF-8 or
 * not JSON as errors. An unterminated last line that does not parse was cut off mid-write (E_TRUNCATED); a complete
 * last line without `\n` is accepted.
 */
export async function* readJsonl(file: string, options: ReadOptions): AsyncGenerator<JsonlEntry> {
  for await (const raw of readLines(file, { maxLineBytes: options.maxLineBytes })) yield jsonlEntry(file, raw, options.maxLineBytes);
}

/** One raw line of a JSONL file as an entry, the way `readJsonl` reads it. */
export function jsonlEntry(file: string, raw: RawLine, maxLineBytes: number): JsonlEntry {
  const at: SourcePosition = { file, line: raw.line, byteOffset: raw.byteOffset };
  const decoded = decodeLine(raw, maxLineBytes);
  if (decoded.kind === 'blank') return { kind: 'blank', at };
  if (decoded.kind === 'error') return { kind: 'error', at, error: decoded.error };
  try {
    return { kind: 'value', at, value: JSON.parse(decoded.text), text: decoded.text, bytes: decoded.bytes };
  } catch (err) {
    const message = (err as Error).message;
    return {
      kind: 'error',
      at,
      error: raw.terminated ? { code: 'E_JSON', message } : { code: 'E_TRUNCATED', message: `last line has no line end and is incomplete: ${message}` },
    };
  }
}

/** The item of a line that holds no value: a blank line is skipped, an unreadable one is an error. */
export function lineItem(entry: Exclude<JsonlEntry, { kind: 'value' }>): InputItem {
  return entry.kind === 'blank' ? skippedItem(entry.at, 'blank') : errorItem(entry.at, entry.error.code, entry.error.message);
}
