import type { Transcript } from '../model/transcript.js';

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

/** The Markdown lines that name the sessions left out of the replay, after the report (none when none was). */
export function renderUnreplayable(list: readonly Unreplayable[]): string {
  if (list.length === 0) return '';
  const rows = list.map((u) => `- ${u.id} (${u.file}): ${u.reason}`);
  return `\n## Not replayed\n\nSessions whose files do not hold what their requests sent; their usage counts in \`stats\`.\n\n${rows.join('\n')}\n`;
}
