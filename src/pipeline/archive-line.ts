import type { ErrorInfo } from '../errors.js';
import { parseArchiveLine } from '../formats/openai-jsonl.js';
import type { InputItem } from '../formats/types.js';
import { decodeLine, type RawLine } from './line-reader.js';

/**
 * Turns one raw line of a canonical archive into an input item, the way `readOpenAIArchive` does for a whole file:
 * blank lines are skipped, bad bytes and bad JSON are errors, and an unterminated last line that does not parse was
 * cut off mid-write (E_TRUNCATED) while a complete one without `\n` is accepted.
 */
export function archiveLineItem(file: string, raw: RawLine, maxLineBytes: number): InputItem {
  const at = { file, line: raw.line, byteOffset: raw.byteOffset };
  const decoded = decodeLine(raw, maxLineBytes);
  if (decoded.kind === 'blank') return { kind: 'skipped', reason: 'blank', ...at };
  if (decoded.kind === 'error') return { kind: 'error', record: { ...at, ...decoded.error } };
  const parsed = parseArchiveLine(decoded.text);
  if (!parsed.ok) {
    const error: ErrorInfo =
      !raw.terminated && parsed.error.code === 'E_JSON'
        ? { code: 'E_TRUNCATED', message: `last line has no line end and is incomplete: ${parsed.error.message}` }
        : parsed.error;
    return { kind: 'error', record: { ...at, ...error } };
  }
  return { kind: 'transcript', ...at, transcript: parsed.value.transcript, lines: 1, warnings: parsed.value.warnings, repairs: {} };
}
