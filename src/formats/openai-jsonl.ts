import { readLines, decodeLine } from '../pipeline/line-reader.js';
import { parseTranscript } from '../model/parse.js';
import type { ErrorInfo } from '../errors.js';
import type { InputItem, ReadOptions } from './types.js';
import type { ParsedTranscript } from '../model/parse.js';
import { type Outcome, fail } from '../errors.js';

/** Parses one archive line's text into a canonical transcript. */
export function parseArchiveLine(text: string): Outcome<ParsedTranscript> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return fail('E_JSON', (err as Error).message);
  }
  return parseTranscript(value);
}

function errorItem(file: string, line: number, byteOffset: number, error: ErrorInfo): InputItem {
  return { kind: 'error', record: { file, line, byteOffset, ...error } };
}

/** Reads a canonical tcompact archive (OpenAI chat JSONL, one transcript per line) as a stream. */
export async function* readOpenAIArchive(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  for await (const raw of readLines(file, { maxLineBytes: options.maxLineBytes })) {
    const decoded = decodeLine(raw, options.maxLineBytes);
    const at = { file, line: raw.line, byteOffset: raw.byteOffset };
    if (decoded.kind === 'blank') {
      yield { kind: 'skipped', reason: 'blank', ...at };
      continue;
    }
    if (decoded.kind === 'error') {
      yield errorItem(file, raw.line, raw.byteOffset, decoded.error);
      continue;
    }
    const parsed = parseArchiveLine(decoded.text);
    if (!parsed.ok) {
      // An unterminated last line that does not parse was cut off mid-write; a complete one without `\n` is fine.
      const error: ErrorInfo = !raw.terminated && parsed.error.code === 'E_JSON'
        ? { code: 'E_TRUNCATED', message: `last line has no line end and is incomplete: ${parsed.error.message}` }
        : parsed.error;
      yield errorItem(file, raw.line, raw.byteOffset, error);
      continue;
    }
    yield { kind: 'transcript', ...at, transcript: parsed.value.transcript, lines: 1, warnings: parsed.value.warnings, repairs: {} };
  }
}
