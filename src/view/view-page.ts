import { isAssistant, type Message } from '../model/message.js';
import { sortScripts } from '../report/html/assets.js';
import { escapeHtml, formatInt, formatShare } from '../report/html/escape.js';
import { PAGE_STYLE } from '../report/html/page.js';
import { type Cell, num, sortableTable } from '../report/html/table.js';
import type { Probe } from '../retention/probes.js';
import { renderMessage } from './render-message.js';
import type { TranscriptView, ViewRow } from './transcript-view.js';

// Rows and messages off screen are neither laid out nor painted (content-visibility), so a page of thousands of
// messages scrolls like a short one; the browser keeps their last size once seen.
const STYLE = `
.flow { padding: 14px 10px; }
.legend { color: var(--muted); font-size: 12px; margin: 0 8px 10px; display: flex; flex-wrap: wrap; gap: 14px; align-items: center; }
.cols { display: grid; grid-template-columns: 1fr 1fr; gap: 10px; position: sticky; top: 0; background: var(--card); z-index: 1; padding: 6px 8px; border-bottom: 1px solid var(--line); font-weight: 600; }
.row { display: grid; grid-template-columns: 1fr 1fr; gap: 10px; padding: 4px 8px; border-left: 4px solid transparent; }
.row > .both { grid-column: 1 / -1; }
.key { padding: 0 6px; border-left: 4px solid transparent; }
.replaced { border-left-color: #4e79a7; background: #f3f7fb; }
.changed { border-left-color: #76b7b2; background: #f2f9f8; }
.merged { border-left-color: #f28e2b; background: #fdf6ee; }
.removed { border-left-color: #e15759; background: #fcf1f1; }
.added, .moved { border-left-color: #b07aa1; background: #f8f2f7; }
body.changed-only .row.kept { display: none; }
.msg { content-visibility: auto; contain-intrinsic-size: auto 90px; background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 4px 8px; margin: 2px 0; min-width: 0; }
.msg header { padding: 0; font-size: 12px; color: var(--muted); display: flex; gap: 6px; align-items: baseline; }
.msg header .tok { margin-left: auto; font-variant-numeric: tabular-nums; }
.msg.user { border-color: #9fb6d3; }
.msg.lost { outline: 2px solid #e15759; }
.msg.lost-other { outline: 2px solid #edc948; }
.row.merged > .r { position: sticky; top: 36px; align-self: start; }
.msg pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 4px 0; max-height: 60vh; overflow-y: auto; }
.msg details > summary { cursor: pointer; color: var(--muted); font-size: 12px; overflow-wrap: anywhere; margin: 4px 0; }
.lbl { font-weight: 600; color: var(--ink); font-size: 12px; }
.size { background: #eef2f6; border-radius: 4px; padding: 0 4px; font-variant-numeric: tabular-nums; }
.att { color: var(--muted); font-size: 12px; margin: 4px 0; }
.err { color: #c0392b; font-weight: 600; }
.piece { font-size: 12px; margin: 2px 0 4px; display: flex; flex-wrap: wrap; gap: 4px 10px; }
.piece .s { font-weight: 600; }
.gone { color: var(--muted); font-style: italic; padding: 6px 8px; border: 1px dashed var(--line); border-radius: 6px; margin: 2px 0; }
.note-lost { color: #b03a2e; font-size: 12px; font-weight: 600; }
.lost-other .note-lost { color: #8a6d00; }
.same { color: var(--muted); font-size: 11px; }
code { font-size: 12px; }
.changes td { overflow-wrap: normal; }
.changes td:last-child { font-family: monospace; font-size: 12px; }
`;

// The only script work: sortable tables (handlers on their headers) and a checkbox that sets one class on <body>.
const BOOT = `
document.querySelectorAll('table.sortable').forEach(function (t) { new Tablesort(t); });
var only = document.getElementById('changed-only');
only.addEventListener('change', function () { document.body.classList.toggle('changed-only', only.checked); });
`;

const KIND_LABEL: Record<ViewRow['kind'], string> = {
  kept: 'kept',
  moved: 'moved',
  replaced: 'replaced by a placeholder',
  changed: 'changed',
  merged: 'merged into one message',
  removed: 'removed',
  added: 'added',
};

const saved = (r: ViewRow): number => r.tokensBefore - r.tokensAfter;

function probeText(p: Probe): string {
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

const lostBy = (l: { strategy: string; compaction?: number }): string =>
  l.compaction === undefined ? l.strategy : `${l.strategy} on the source's compaction ${l.compaction}`;

/** The tool of each result, from the call that asked for it. */
function toolNames(messages: readonly Message[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const m of messages) if (isAssistant(m)) for (const c of m.tool_calls ?? []) names.set(c.id, c.function.name);
  return names;
}

function pieceLine(r: ViewRow): string {
  const refs = r.refs.map((ref) => `<code>${ref}</code>`).join(' ');
  return (
    `<div class="piece"><span class="s">${escapeHtml(r.strategy ?? 'strategy unknown')}</span>` +
    `<span>${KIND_LABEL[r.kind]}</span><span>saved <b>${formatInt(saved(r))}</b> tokens</span>` +
    `${refs === '' ? '' : `<span>ref ${refs}</span>`}</div>`
  );
}

function rowsHtml(v: TranscriptView): string {
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

function span(indexes: readonly number[]): string {
  if (indexes.length === 0) return '—';
  const [first, last] = [indexes[0], indexes[indexes.length - 1]];
  return indexes.length === 1 ? `#${first}` : `#${first}–#${last} (${indexes.length})`;
}

function firstLine(text: string, max = 120): string {
  const line = text.split('\n', 1)[0];
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function changesSection(v: TranscriptView): string {
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
      : `${formatInt(pieces.length)} piece${pieces.length === 1 ? '' : 's'} changed; ${toolsSaved === 0 ? 'they' : 'with the tool definitions, they'} add up to the ` +
        `${formatInt(total)} tokens saved. ` +
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

function lostSection(v: TranscriptView): string {
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
    `<p class="intro">${formatInt(lost.length)} facts of the original that the eval found missing after compaction (lost.jsonl), ${formatInt(byRun)} of them by this run's ` +
      "compaction, marked in red on the messages where they occurred; those lost by the eval's other strategies, or by the source's own summary on its span, are marked in yellow.</p>",
    '<div class="table-wrap"><table><thead><tr><th>lost by</th><th>kind</th><th>probe</th><th>where in the original</th></tr></thead><tbody>',
    rows.join('\n'),
    '</tbody></table></div></section>',
  ].join('\n');
}

/** The page of one transcript: what compaction did to it, piece by piece, and both sides message by message. */
export function renderViewPage(v: TranscriptView): string {
  const savedTokens = v.tokens.before - v.tokens.after;
  const kpis: { key: string; label: string; value: number; text: string }[] = [
    { key: 'tokensBefore', label: `tokens before (${v.tokenizer})`, value: v.tokens.before, text: formatInt(v.tokens.before) },
    { key: 'tokensAfter', label: 'tokens after', value: v.tokens.after, text: formatInt(v.tokens.after) },
    {
      key: 'tokensSaved',
      label: `tokens saved (${formatShare(v.tokens.before > 0 ? savedTokens / v.tokens.before : 0)})`,
      value: savedTokens,
      text: formatInt(savedTokens),
    },
    { key: 'messagesBefore', label: 'messages before', value: v.original.length, text: formatInt(v.original.length) },
    { key: 'messagesAfter', label: 'messages after', value: v.compacted.length, text: formatInt(v.compacted.length) },
  ];
  if (v.lost) {
    const byRun = v.lost.filter((l) => l.byRun).length;
    kpis.push({ key: 'probesLost', label: 'probes lost by this compaction', value: byRun, text: formatInt(byRun) });
  }
  const kpiHtml = kpis
    .map(
      (h) =>
        `<div class="kpi" data-key="${h.key}" data-value="${h.value}"><span class="value">${h.text}</span><span class="label">${escapeHtml(h.label)}</span></div>`,
    )
    .join('');
  const subtitle = [v.source, `compacted with ${v.strategies.join(' + ')}`].filter((s) => s !== undefined).join(' · ');
  const legend = (['replaced', 'changed', 'merged', 'removed', 'added'] as const).map((k) => `<span class="key ${k}">${KIND_LABEL[k]}</span>`).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(v.id)} · tcompact view</title>
<style>${PAGE_STYLE}${STYLE}</style>
</head>
<body>
<header><h1>${escapeHtml(v.id)}</h1><p class="sub">${escapeHtml(subtitle)}</p></header>
<main>
<div class="kpis">${kpiHtml}</div>
${changesSection(v)}
${lostSection(v)}
<section class="flow"><h2>Messages</h2>
<div class="legend"><label><input type="checkbox" id="changed-only"> only what changed</label>${legend}<span>Long texts are folded: click a line to open it.</span></div>
<div class="cols"><div>Original: ${formatInt(v.original.length)} messages, ${formatInt(v.tokens.before)} tokens</div><div>Compacted: ${formatInt(v.compacted.length)} messages, ${formatInt(v.tokens.after)} tokens</div></div>
${rowsHtml(v)}
</section>
</main>
<footer>Written by tcompact view. Self-contained: nothing is loaded from the network. The original is the transcript as tcompact restore gives it back; kept messages are shown once, across both columns.</footer>
${sortScripts()}
<script>${BOOT}</script>
</body>
</html>
`;
}
