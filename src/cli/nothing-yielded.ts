import type { CliIO } from './command.js';
import { EXIT } from './exit-codes.js';

/**
 * A command whose inputs gave no transcript and no error did nothing a user asked for (a folder with no sessions, a
 * file of progress records only): it says what it skipped instead, on stderr, and the command exits 1. Returns the
 * exit code to use, or undefined when something was read.
 */
export function nothingYielded(
  io: CliIO,
  command: string,
  inputs: readonly string[],
  counts: { transcripts: number; failed: number; skippedByReason: Record<string, number> },
): number | undefined {
  if (counts.transcripts > 0 || counts.failed > 0) return undefined;
  const reasons = Object.entries(counts.skippedByReason)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([reason, n]) => `${n} ${reason}`);
  const skipped = reasons.length > 0 ? `skipped ${reasons.join(', ')}` : 'no data file (.jsonl, .json, .traj) was found';
  io.stderr.write(`tcompact ${command}: no transcript in ${inputs.join(', ')}: ${skipped}\n`);
  return EXIT.INPUT_ERRORS;
}
