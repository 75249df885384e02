import { sortScripts } from '../report/html/assets.js';
import { escapeHtml } from '../report/html/escape.js';
import { int, pct } from '../report/format.js';
import { PAGE_STYLE, kpisHtml, pageHead } from '../report/html/page.js';
import { KIND_LABEL, rowsHtml } from './page-rows.js';
import { changesSection, lostSection } from './page-sections.js';
import type { TranscriptView } from './transcript-view.js';

// Messages off screen are neither laid out nor painted (content-visibility), so a page of thousands of messages
// scrolls like a short one; the browser keeps their size once it has seen them.
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

/** The page of one transcript: what compaction did to it, piece by piece, and both sides message by message. */
export function renderViewPage(v: TranscriptView): string {
  const savedTokens = v.tokens.before - v.tokens.after;
  const kpis: { key: string; label: string; value: number; text: string }[] = [
    { key: 'tokensBefore', label: `tokens before (${v.tokenizer})`, value: v.tokens.before, text: int(v.tokens.before) },
    { key: 'tokensAfter', label: 'tokens after', value: v.tokens.after, text: int(v.tokens.after) },
    {
      key: 'tokensSaved',
      label: `tokens saved (${pct(v.tokens.before > 0 ? savedTokens / v.tokens.before : 0)})`,
      value: savedTokens,
      text: int(savedTokens),
    },
    { key: 'messagesBefore', label: 'messages before', value: v.original.length, text: int(v.original.length) },
    { key: 'messagesAfter', label: 'messages after', value: v.compacted.length, text: int(v.compacted.length) },
  ];
  if (v.lost) {
    const byRun = v.lost.filter((l) => l.byRun).length;
    kpis.push({ key: 'probesLost', label: 'probes lost by this compaction', value: byRun, text: int(byRun) });
  }
  const kpiHtml = kpisHtml(kpis);
  const subtitle = [v.source, `compacted with ${v.strategies.join(' + ')}`].filter((s) => s !== undefined).join(' · ');
  const legend = (['replaced', 'changed', 'merged', 'removed', 'added'] as const).map((k) => `<span class="key ${k}">${KIND_LABEL[k]}</span>`).join('');
  return `${pageHead(`${v.id} · tcompact view`, PAGE_STYLE + STYLE)}
<body>
<header><h1>${escapeHtml(v.id)}</h1><p class="sub">${escapeHtml(subtitle)}</p></header>
<main>
<div class="kpis">${kpiHtml}</div>
${changesSection(v)}
${lostSection(v)}
<section class="flow"><h2>Messages</h2>
<div class="legend"><label><input type="checkbox" id="changed-only"> only what changed</label>${legend}<span>Long texts are folded: click a line to open it.</span></div>
<div class="cols"><div>Original: ${int(v.original.length)} messages, ${int(v.tokens.before)} tokens</div><div>Compacted: ${int(v.compacted.length)} messages, ${int(v.tokens.after)} tokens</div></div>
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
