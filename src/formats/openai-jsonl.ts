import { type RawLine, readLines } from '../io/line-reader.js';
import { parseTranscript } from '../model/parse.js';
import type { InputItem, ReadOptions } from './types.js';
import { errorItem } from './_items.js';
import { jsonlEntry, lineItem } from './_jsonl.js';

/**
 * Turns one raw line of a canonical archive into an input item: blank lines are skipped, bad bytes and bad JSON are
 * errors (an unterminated last line that does not parse was cut off mid-write: E_TRUNCATED; a complete one without
 * `\n` is accepted), and a value that is not a canonical transcript is an E_SCHEMA error.
 */
export function archiveLineItem(file: string, raw: RawLine, maxLineBytes: number): InputItem {
  const entry = jsonlEntry(file, raw, maxLineBytes);
  if (entry.kind !== 'value') return lineItem(entry);
  const parsed = parseTranscript(entry.value);
  if (!parsed.ok) return errorItem(entry.at, parsed.error.code, parsed.error.message);
  return {
    kind: 'transcript',
    ...entry.at,
    transcript: parsed.value.transcript,
    lines: 1,
    warnings: parsed.value.warnings,
    repairs: {},
    sourceBytes: entry.bytes,
  };
}

/** Reads a canonical tcompact archive (OpenAI chat JSONL, one transcript per line) as a stream. */
export async function* readOpenAIArchive(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  for await (const raw of readLines(file, { maxLineBytes: options.maxLineBytes })) yield archiveLineItem(file, raw, options.maxLineBytes);
}
