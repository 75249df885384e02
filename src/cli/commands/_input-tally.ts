import { LineTally } from '../../formats/line-tally.js';
import type { InputItem } from '../../formats/types.js';
import type { CliIO } from '../command.js';
import { nothingYielded } from '../nothing-yielded.js';

/** Input accounting shared by `eval` and `simulate`: errors go to stderr as they come, and are counted (in lines). */
export class InputTally {
  private readonly tally = new LineTally();

  constructor(private readonly io: CliIO) {}

  get transcripts(): number {
    return this.tally.transcripts;
  }

  /** Failed input lines. */
  get errors(): number {
    return this.tally.lines.failed;
  }

  get skipped(): number {
    return this.tally.lines.skipped;
  }

  /** When nothing was read: says what was skipped and gives the exit code (see nothing-yielded.ts). */
  nothingYielded(command: string, inputs: readonly string[]): number | undefined {
    return nothingYielded(this.io, command, inputs, { transcripts: this.transcripts, failed: this.errors, skippedByReason: this.tally.skippedByReason });
  }

  /** True when the item is a transcript to process. */
  accept(item: InputItem): item is Extract<InputItem, { kind: 'transcript' }> {
    if (item.kind === 'error') {
      const r = item.record;
      this.io.stderr.write(`${r.file}:${r.line}: ${r.code}: ${r.message}\n`);
    }
    const transcript = this.tally.item(item);
    if (transcript) this.tally.ok(transcript.lines);
    return transcript !== undefined;
  }
}
