import { type Message, isAssistant } from '../model/message.js';
import { escapeHtml } from '../report/html/escape.js';
import { int } from '../report/format.js';
import { lostBy, probeText, saved } from './page-sections.js';
import { renderMessage } from './render-message.js';
import type { TranscriptView, ViewRow } from './transcript-view.js';

/** What became of a row's originals, in words. */
export const KIND_LABEL: Record<ViewRow['kind'], string> = {
  kept: 'kept',
  moved: 'moved',
  replaced: 'replaced by a placeholder',
  changed: 'changed',
  merged: 'merged into one message',
  removed: 'removed',
  added: 'added',
};

/** The tool of each result, from the call that asked for it. */
function toolNames(messages: readonly Message[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const m of messages) if (isAssistant(m)) for (const c of m.tool_calls ?? []) names.set(c.id, c.function.name);
  return names;
}

/** The line over a piece: its strategy, what happened, the tokens saved and the refs. */
function pieceLine(r: ViewRow): string {
  const refs = r.refs.map((ref) => `<code>${ref}</code>`).join(' ');
  return (
    `<div class="piece"><span class="s">${escapeHtml(r.strategy ?? 'strategy unknown')}</span>` +
    `<span>${KIND_LABEL[r.kind]}</span><span>saved <b>${int(saved(r))}</b> tokens</span>` +
    `${refs === '' ? '' : `<span>ref ${refs}</span>`}</div>`
  );
}

/**
 * The rows of the before/after view: a kept message once, across both columns; otherwise the originals on the left,
 * and on the right the piece (strategy, tokens saved, refs) over what stands in their place.
 */
export function rowsHtml(v: TranscriptView): string {
  const namesBefore = toolNames(v.original);
  const namesAfter = toolNames(v.compacted);
  const lostAt = new Map<number, { notes: string[]; byRun: boolean }>();
  for (const l of v.lost ?? []) {
    for (const i of l.sites) {
      const at = lostAt.get(i) ?? { notes: [], byRun: false };
      at.notes.push(`lost by ${escapeHtml(lostBy(l))}: ${escapeHtml(probeText(l.probe))}`);
      at.byRun ||= l.byRun;
      lostAt.set(i, at);
    }
  }
  const toolOf = (m: Message, names: Map<string, string>) => (m.role === 'tool' ? names.get((m as { tool_call_id: string }).tool_call_id) : undefined);
  const before = (i: number) =>
    renderMessage(v.original[i], {
      id: `o${i}`,
      index: i,
      tokens: v.messageTokens.original[i],
      tool: toolOf(v.original[i], namesBefore),
      ...(lostAt.has(i) && { className: lostAt.get(i)?.byRun ? 'lost' : 'lost-other', notes: lostAt.get(i)?.notes }),
    });
  const after = (j: number) =>
    renderMessage(v.compacted[j], { id: `c${j}`, index: j, tokens: v.messageTokens.compacted[j], tool: toolOf(v.compacted[j], namesAfter) });
  return v.rows
    .map((r, k) => {
      const open = `<div class="row ${r.kind}" id="r${k}">`;
      if (r.kind === 'kept') return `${open}<div class="both">${before(r.before[0])}</div></div>`;
      if (r.kind === 'moved') {
        return `${open}<div class="both">${before(r.before[0])}<div class="same">unchanged, moved to #${r.after[0]} by ${escapeHtml(r.strategy ?? 'a strategy')}</div></div></div>`;
      }
      const left =
        r.before.length === 0 ? `<div class="gone">no original: ${escapeHtml(r.strategy ?? 'a strategy')} added it</div>` : r.before.map(before).join('');
      const right = r.after.length === 0 ? `<div class="gone">nothing in its place</div>` : r.after.map(after).join('');
      return `${open}<div class="l">${left}</div><div class="r">${pieceLine(r)}${right}</div></div>`;
    })
    .join('\n');
}
