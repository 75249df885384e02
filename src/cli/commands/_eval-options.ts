import { TcompactError } from '../../errors.js';
import type { InputItem } from '../../formats/types.js';
import type { CliIO } from '../command.js';

/** Parses a flag value as a non-negative number, with an exact message otherwise. */
export function nonNegativeOption(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new TcompactError('E_USAGE', `--${name} must be a number >= 0, got "${value}"`);
  return n;
}

/** Input accounting shared by `eval` and `simulate`: errors go to stderr as they come, and are counted. */
export class InputTally {
  transcripts = 0;
  errors = 0;
  skipped = 0;

  constructor(private readonly io: CliIO) {}

  /** True when the item is a transcript to process. */
  accept(item: InputItem): item is Extract<InputItem, { kind: 'transcript' }> {
    if (item.kind === 'error') {
      this.errors++;
      const r = item.record;
      this.io.stderr.write(`${r.file}:${r.line}: ${r.code}: ${r.message}\n`);
      return false;
    }
    if (item.kind === 'skipped') {
      this.skipped++;
      return false;
    }
    this.transcripts++;
    return true;
  }
}
