import { escapeHtml } from '../report/html/escape.js';
import { int } from '../report/format.js';
import { type Cell, num, sortableTable } from '../report/html/table.js';
import type { Probe } from '../retention/probes.js';
import type { TranscriptView, ViewRow } from './transcript-view.js';

/** The tokens a row saved. */
export const saved = (r: ViewRow): number => r.tokensBefore - r.tokensAfter;

/** A probe as a line of text. */
export function probeText(p: Probe): string {
  switch (p.kind) {
    case 'artifact':
      return `file ${p.path} (${p.actions.join(', ')})`;
    case 'command':
      return `command ${p.command}`;
    case 'error':
      return `error ${p.line}`;
    case 'intent':
      return `request ${p.text.length > 160 ? `${p.text.slice(0, 159)}…` : p.text}`;
    case 'task':
      return `open task ${p.content} (${p.status})`;
  }
}

/** Who lost a probe: a row of the eval, on the whole transcript or on the source's own compaction span. */
export const lostBy = (l: { strategy: string; compaction?: number }): string =>
  l.compaction === undefined ? l.strategy : `${l.strategy} on the source's compaction ${l.compaction}`;

function span(indexes: readonly number[]): string {
  if (indexes.length === 0) return '—';
  const [first, last] = [indexes[0], indexes[indexes.length - 1]];
  return indexes.length === 1 ? `#${first}` : `#${first}–#${last} (${indexes.length})`;
}

function firstLine(text: string, max = 120): string {
  const line = text.split('\n', 1)[0];
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** What compaction did to the transcript: tokens saved per strategy, and every piece. */
export function changesSection(v: TranscriptView): string {
  const pieces = v.rows.map((r, k) => ({ r, k })).filter(({ r }) => r.kind !== 'kept');
  const byStrategy = new Map<string, { pieces: number; before: number; after: number; saved: number }>();
  const tally = (name: string, s: { pieces: number; before: number; after: number; saved: number }) => {
    const t = byStrategy.get(name) ?? { pieces: 0, before: 0, after: 0, saved: 0 };
    byStrategy.set(name, { pieces: t.pieces + s.pieces, before: t.before + s.before, after: t.after + s.after, saved: t.saved + s.saved });
  };
  for (const { r } of pieces) tally(r.strategy ?? 'unknown', { pieces: 1, before: r.before.length, after: r.after.length, saved: saved(r) });
  const toolsSaved = v.tools.before - v.tools.after;
  if (toolsSaved !== 0) tally('prune-tools (tool definitions)', { pieces: 1, before: 0, after: 0, saved: toolsSaved });
  const total = v.tokens.before - v.tokens.after;
  const strategyRows: Cell[][] = [...byStrategy].map(([name, t]) => [name, num(t.pieces), num(t.before), num(t.after), num(t.saved)]);
  const pieceRows: Cell[][] = pieces.map(({ r, k }) => [
    { text: r.before.length > 0 ? span(r.before) : `new #${r.after[0]}`, href: `#r${k}` },
    r.kind,
    r.strategy ?? 'unknown',
    r.stubs.length > 0 ? firstLine(r.stubs[0]) : '',
    num(r.tokensBefore),
    num(r.tokensAfter),
    num(saved(r)),
    r.refs.join(' '),
  ]);
  const intro =
    pieces.length === 0 && toolsSaved === 0
      ? 'Compaction left this transcript as it was.'
      : `${int(pieces.length)} piece${pieces.length === 1 ? '' : 's'} changed; ${toolsSaved === 0 ? 'they' : 'with the tool definitions, they'} add up to the ` +
        `${int(total)} tokens saved. ` +
        'A placeholder names the strategy that wrote it and the ref under which the side store keeps what it replaced; a change without one is named from what changed.';
  return [
    '<section class="changes"><h2>What compaction did</h2>',
    `<p class="intro">${escapeHtml(intro)}</p>`,
    byStrategy.size === 0
      ? ''
      : sortableTable(
          [
            { label: 'strategy' },
            { label: 'pieces', numeric: true },
            { label: 'messages before', numeric: true },
            { label: 'after', numeric: true },
            { label: 'tokens saved', numeric: true },
          ],
          strategyRows,
        ),
    pieces.length === 0
      ? ''
      : sortableTable(
          [
            { label: 'original messages' },
            { label: 'kind' },
            { label: 'strategy' },
            { label: 'placeholder' },
            { label: 'tokens before', numeric: true },
            { label: 'after', numeric: true },
            { label: 'saved', numeric: true },
            { label: 'ref' },
          ],
          pieceRows,
          'Every piece, in transcript order',
        ),
    '</section>',
  ].join('\n');
}

/** The probes an eval lost on the transcript and where they occurred in the original. */
export function lostSection(v: TranscriptView): string {
  const lost = v.lost;
  if (!lost) return '';
  if (lost.length === 0) return '<section><h2>Probes lost</h2><p class="intro">The eval lost no probe of this transcript.</p></section>';
  const byRun = lost.filter((l) => l.byRun).length;
  const rows = lost.map((l) => {
    const where = l.sites.map((i) => `<a href="#o${i}">#${i}</a>`).join(' ');
    return `<tr><td>${escapeHtml(lostBy(l))}</td><td>${escapeHtml(l.probe.kind)}</td><td>${escapeHtml(probeText(l.probe))}</td><td>${where === '' ? 'not found in the messages' : where}</td></tr>`;
  });
  return [
    '<section><h2>Probes lost</h2>',
    `<p class="intro">${int(lost.length)} facts of the original that the eval found missing after compaction (lost.jsonl), ${int(byRun)} of them by this run's ` +
      "compaction, marked in red on the messages where they occurred; those lost by the eval's other strategies, or by the source's own summary on its span, are marked in yellow.</p>",
    '<div class="table-wrap"><table><thead><tr><th>lost by</th><th>kind</th><th>probe</th><th>where in the original</th></tr></thead><tbody>',
    rows.join('\n'),
    '</tbody></table></div></section>',
  ].join('\n');
}
