import type { ErrorInfo } from '../errors.js';
import { decodeLine, readLines } from '../pipeline/line-reader.js';
import type { ReadOptions, SourcePosition } from './types.js';

export type JsonlEntry =
  | { kind: 'value'; at: SourcePosition; value: unknown }
  | { kind: 'blank'; at: SourcePosition }
  | { kind: 'error'; at: SourcePosition; error: ErrorInfo };

/**
 * Streams a JSONL file as parsed values, one entry per line: blank lines, and lines that are too long, not UTF-8 or
 * not JSON as errors. An unterminated last line that does not parse was cut off mid-write (E_TRUNCATED); a complete
 * last line without `\n` is accepted.
 */
export async function* readJsonl(file: string, options: ReadOptions): AsyncGenerator<JsonlEntry> {
  for await (const raw of readLines(file, { maxLineBytes: options.maxLineBytes })) {
    const at: SourcePosition = { file, line: raw.line, byteOffset: raw.byteOffset };
    const decoded = decodeLine(raw, options.maxLineBytes);
    if (decoded.kind === 'blank') {
      yield { kind: 'blank', at };
      continue;
    }
    if (decoded.kind === 'error') {
      yield { kind: 'error', at, error: decoded.error };
      continue;
    }
    try {
      yield { kind: 'value', at, value: JSON.parse(decoded.text) };
    } catch (err) {
      const message = (err as Error).message;
      yield {
        kind: 'error',
        at,
        error: raw.terminated
          ? { code: 'E_JSON', message }
          : { code: 'E_TRUNCATED', message: `last line has no line end and is incomplete: ${message}` },
      };
    }
  }
}
