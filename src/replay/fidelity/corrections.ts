import { messageContent } from '../../model/message.js';
import type { Transcript } from '../../model/transcript.js';
import { int } from '../../report/format.js';
import type { ArchiveBasePrompt } from '../base-prompt.js';
import type { UnloggedSpan } from '../billing/token-ratio.js';
import { clientOverridesModel, idleBefore } from '../client-thinking.js';

/**
 * What the fidelity table says a session's replay corrected of its log, and what it estimated from the record: the
 * departures of a source's log from what it sent that the reader and the replay know, each named where the session
 * holds it.
 */
export function correctionsOf(
  transcript: Transcript,
  steps: readonly UnloggedSpan[],
  mentions?: { sized: { files: number; tokens: number }; unsized: { files: number; tokens: number } },
  archiveBase?: ArchiveBasePrompt | 'unknown',
): { corrected: string[]; estimated: string[] } {
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
  const files = (n: number) => `${int(n)} @file ${n === 1 ? 'attachment' : 'attachments'}`;
  if (mentions && mentions.sized.files > 0)
    corrected.push(`${files(mentions.sized.files)} of the first prompt sent with it, not in the base prompt (${int(mentions.sized.tokens)} tokens)`);
  // Calls after an earlier reply of their model with thinking, whose client version decided what they sent of it
  // against the model's own rule.
  const thought = new Set<string>();
  const idle = idleBefore(transcript.messages);
  let byVersion = 0;
  for (const m of transcript.messages) {
    if (m.role !== 'assistant' || typeof m.model !== 'string') continue;
    if (thought.has(m.model) && clientOverridesModel(m, m.model, idle(m))) byVersion++;
    if (typeof m.reasoning_content === 'string' && m.reasoning_content !== '') thought.add(m.model);
  }
  if (byVersion > 0) corrected.push(`earlier thinking as the client's version sent it (${int(byVersion)} ${byVersion === 1 ? 'call' : 'calls'})`);
  const compactions = Array.isArray(transcript.metadata?.compactions) ? transcript.metadata.compactions.length : 0;
  if (compactions > 0 && transcript.messages.some((m) => typeof m.thread === 'number'))
    corrected.push(`${int(compactions)} ${compactions === 1 ? 'compaction' : 'compactions'} applied on ${compactions === 1 ? 'its' : 'their'} own branch`);
  const estimated: string[] = [];
  // A session that records only its totals (metadata.sessionUsage) shows no base prompt of its own.
  if (archiveBase === 'unknown') estimated.push('base prompt unknown (no session of its agent records per-call usage), 0 tokens');
  else if (archiveBase)
    estimated.push(
      `base prompt estimated from ${int(archiveBase.sessions)} other ${archiveBase.sessions === 1 ? 'session' : 'sessions'} of its agent (${int(archiveBase.tokens)} tokens)`,
    );
  if (mentions && mentions.unsized.files > 0)
    estimated.push(`${files(mentions.unsized.files)} of the first prompt sized from the record (${int(mentions.unsized.tokens)} tokens)`);
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
    const { points, condenses, truncations, usage } = roo as { points?: unknown; condenses?: unknown; truncations?: unknown; usage?: unknown };
    // Without its UI log, a task's usage is its history_item.json totals (formats/cline.ts): held against those alone.
    if (usage === 'history_item.json') corrected.push("usage from history_item.json's task totals (no per-call record)");
    const [c, t] = [typeof condenses === 'number' ? condenses : 0, typeof truncations === 'number' ? truncations : 0];
    const what = `${int(c)} ${c === 1 ? 'condense' : 'condenses'}, ${int(t)} ${t === 1 ? 'truncation' : 'truncations'}`;
    if (c + t > 0 && points === 'recorded') corrected.push(`Roo's context points read (${what})`);
    else if (c + t > 0 && points === 'inferred') estimated.push(`Roo's context points placed by its rule (${what})`);
  }
  const interrupted = transcript.messages.filter((m) => m.unrecorded_request === true).length;
  if (interrupted > 0)
    estimated.push(
      `${int(interrupted)} interrupted ${interrupted === 1 ? 'request' : 'requests'} billed as the next call's cache read shows ${interrupted === 1 ? 'it' : 'them'} (no usage recorded)`,
    );
  if (steps.length > 0) {
    const tokens = steps.reduce((n, s) => n + s.tokens, 0);
    estimated.push(`post-compaction step (${int(steps.length)} ${steps.length === 1 ? 'point' : 'points'}, ${int(tokens)} tokens)`);
  }
  return { corrected, estimated };
}
