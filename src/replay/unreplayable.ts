import type { Transcript } from '../model/transcript.js';
import type { SessionFidelity } from './fidelity/session-fidelity.js';

/** A session the replay leaves out, and why. */
export interface Unreplayable {
  id: string;
  file: string;
  reason: string;
}

/**
 * Why a transcript cannot be replayed, or undefined when it can: a file that records usage only (Cline's
 * `ui_messages.json` read alone, `metadata.usageOnly`), or a history that lost what its requests sent (a reader's
 * `metadata.unreplayable`, Roo Code's deleted messages). Such a session counts in `stats`; replayed, it would bill
 * prompts nobody sent.
 */
export function unreplayableReason(transcript: Transcript): string | undefined {
  if (transcript.metadata?.usageOnly === true) return 'its file records usage only';
  const reason = transcript.metadata?.unreplayable;
  return typeof reason === 'string' && reason !== '' ? reason : undefined;
}

/**
 * How far short of its recorded totals a session's replay may come before its file is taken to have lost messages.
 * Deleted messages only make the replay shorter; a history that keeps them replays within a few percent of its totals
 * once the base prompt is known.
 */
export const SHORT_OF_TOTALS = 0.25;

/**
 * Why a session that records only its totals cannot be replayed, seen on its replay: with its base prompt known, the
 * replay bills more than SHORT_OF_TOTALS less input than the totals hold. Its file lost messages its requests sent
 * (Roo Code's history alone after a sliding window or condense of a version that deleted what it hid), which nothing
 * left in the file marks. Undefined when the replay is held against per-call records, or the base prompt is unknown.
 */
export function shortOfTotalsReason(f: SessionFidelity | undefined, basePromptKnown: boolean): string | undefined {
  if (!f || f.perCall || !basePromptKnown || f.input.offBy === null || f.input.offBy >= -SHORT_OF_TOTALS) return undefined;
  const share = Math.round((f.input.replayed / f.input.recorded) * 100);
  return `its history replays to ${share}% of the input its recorded totals hold: the file lost messages its requests sent (deleted by a sliding window or condense that did not tag them), so what was sent cannot be rebuilt`;
}

/** The Markdown lines that name the sessions left out of the replay, after the report (none when none was). */
export function renderUnreplayable(list: readonly Unreplayable[]): string {
  if (list.length === 0) return '';
  const rows = list.map((u) => `- ${u.id} (${u.file}): ${u.reason}`);
  return `\n## Not replayed\n\nSessions whose files do not hold what their requests sent; their usage counts in \`stats\`.\n\n${rows.join('\n')}\n`;
}
