import { messageContent } from '../../model/message.js';
import type { Transcript } from '../../model/transcript.js';
import { int } from '../../report/format.js';
import type { UnloggedSpan } from '../billing/token-ratio.js';

/**
 * What the fidelity table says a session's replay corrected of its log, and what it estimated from the record: the
 * departures of a source's log from what it sent that the reader and the replay know, each named where the session
 * holds it.
 */
export function correctionsOf(transcript: Transcript, steps: readonly UnloggedSpan[]): { corrected: string[]; estimated: string[] } {
  const corrected: string[] = [];
  const images = transcript.messages.reduce((n, m) => {
    const content = messageContent(m);
    return n + (Array.isArray(content) ? content.filter((p) => p.type === 'image_url').length : 0);
  }, 0);
  if (images > 0) corrected.push(`${int(images)} images as billed`);
  const relogged = transcript.messages.filter((m) => m.logged_by_session === true).length;
  if (relogged > 0) corrected.push(`${int(relogged)} replies of the session counted there`);
  if (/:sidechain-\d+$/.test(transcript.id)) corrected.push('inline sidechain read apart');
  const attachments = transcript.messages.filter((m) => typeof m.attachment === 'string').length;
  if (attachments > 0) corrected.push(`${int(attachments)} logged attachments sent`);
  const cleared = transcript.messages.filter((m) => m.unlogged_microcompact === true).length;
  if (cleared > 0) corrected.push(`${int(cleared)} unlogged ${cleared === 1 ? 'microcompact' : 'microcompacts'} read from the record`);
  const estimated: string[] = [];
  // Cline's deleted ranges: read from its UI log, or inferred with its rule (metadata.clineContext, formats/cline.ts).
  const cline = transcript.metadata?.clineContext;
  if (cline !== null && typeof cline === 'object' && !Array.isArray(cline)) {
    const { points, cuts, window } = cline as { points?: unknown; cuts?: unknown; window?: unknown };
    const n = typeof cuts === 'number' ? cuts : 0;
    const ranges = `${int(n)} ${n === 1 ? 'range' : 'ranges'}`;
    if (points === 'recorded') corrected.push(`Cline's deleted ranges read (${ranges})`);
    else if (points === 'inferred') estimated.push(`Cline's deleted ranges inferred (${ranges}, window ${typeof window === 'number' ? int(window) : '?'})`);
  }
  // Roo Code's condense summaries and truncation markers, read from its tags: each placed at its request by the UI
  // log's entry or the summary's own place, or by Roo's rule (metadata.rooContext, formats/_roo-context.ts).
  const roo = transcript.metadata?.rooContext;
  if (roo !== null && typeof roo === 'object' && !Array.isArray(roo)) {
    const { points, condenses, truncations } = roo as { points?: unknown; condenses?: unknown; truncations?: unknown };
    const [c, t] = [typeof condenses === 'number' ? condenses : 0, typeof truncations === 'number' ? truncations : 0];
    const what = `${int(c)} ${c === 1 ? 'condense' : 'condenses'}, ${int(t)} ${t === 1 ? 'truncation' : 'truncations'}`;
    if (c + t > 0 && points === 'recorded') corrected.push(`Roo's context points read (${what})`);
    else if (c + t > 0 && points === 'inferred') estimated.push(`Roo's context points placed by its rule (${what})`);
  }
  if (steps.length > 0) {
    const tokens = steps.reduce((n, s) => n + s.tokens, 0);
    estimated.push(`post-compaction step (${int(steps.length)} ${steps.length === 1 ? 'point' : 'points'}, ${int(tokens)} tokens)`);
  }
  return { corrected, estimated };
}
