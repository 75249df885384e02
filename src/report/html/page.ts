import { libraryScripts } from './assets.js';
import type { ChartSpec } from './chart.js';
import { escapeHtml, jsonInScript } from './escape.js';

/** A headline figure; `key` names the field of the JSON report it equals (tests compare them). */
export interface Headline {
  key: string;
  label: string;
  value: number;
  text: string;
}

export interface Section {
  title: string;
  intro?: string;
  charts?: readonly ChartSpec[];
  /** Tables and other markup, already escaped. */
  html?: string;
}

export interface Page {
  title: string;
  subtitle: string;
  headline: readonly Headline[];
  sections: readonly Section[];
}

/** The styles every page shares. */
export const PAGE_STYLE = `
:root { color-scheme: light; --ink: #1f2933; --muted: #61707f; --line: #dde3ea; --card: #fff; --bg: #f4f6f9; --accent: #4e79a7; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: var(--ink); background: var(--bg); }
header { padding: 20px 32px 8px; }
h1 { margin: 0 0 4px; font-size: 22px; }
.sub { color: var(--muted); margin: 0; word-break: break-all; }
main { padding: 8px 32px 32px; }
.kpis { display: flex; flex-wrap: wrap; gap: 12px; margin: 12px 0 20px; }
.kpi { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 10px 16px; min-width: 150px; }
.kpi .value { display: block; font-size: 22px; font-weight: 600; }
.kpi .label { color: var(--muted); font-size: 12px; }
section { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 14px 18px; margin-bottom: 18px; }
h2 { font-size: 16px; margin: 0 0 6px; }
.intro { color: var(--muted); margin: 0 0 10px; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 18px; margin-bottom: 8px; }
figure { margin: 0; }
figcaption { font-weight: 600; margin-bottom: 4px; }
.chart-box { position: relative; height: 300px; }
.note { color: var(--muted); font-size: 12px; margin-top: 4px; }
.table-wrap { overflow-x: auto; margin: 8px 0; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
caption { text-align: left; font-weight: 600; padding-bottom: 4px; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
td { max-width: 560px; overflow-wrap: anywhere; }
th { background: #eef2f6; cursor: pointer; user-select: none; white-space: nowrap; }
th[aria-sort="ascending"]::after { content: " ▲"; }
th[aria-sort="descending"]::after { content: " ▼"; }
.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
figure.wide { grid-column: 1 / -1; }
pre { background: #f6f8fa; border: 1px solid var(--line); padding: 8px; overflow-x: auto; font-size: 12px; margin: 6px 0; }
footer { color: var(--muted); font-size: 12px; padding: 0 32px 24px; }
`;

// Draws every chart from its JSON configuration, adds the axis and tooltip formats, makes tables sortable, and
// records what it drew on <html data-charts> (the browser tests read it). Animation is off: one synchronous draw.
const BOOT = `
(function () {
  var specs = JSON.parse(document.getElementById('tcompact-charts').textContent);
  var compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });
  var plain = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
  var formats = {
    number: function (v) { return plain.format(v); },
    compact: function (v) { return compact.format(v); },
    percent: function (v) { return (100 * v).toFixed(Math.abs(v) < 0.1 && v !== 0 ? 1 : 0) + '%'; },
    usd: function (v) { return '$' + plain.format(v); }
  };
  Chart.defaults.animation = false;
  Chart.defaults.maintainAspectRatio = false;
  Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
  Chart.defaults.plugins.legend.labels.filter = function (item, data) { return !data.datasets[item.datasetIndex].legendHidden; };
  var drawn = 0;
  specs.forEach(function (spec) {
    var config = spec.config;
    var scales = config.options.scales || {};
    ['x', 'y'].forEach(function (axis) {
      var f = spec.formats[axis];
      if (f && scales[axis]) scales[axis].ticks = Object.assign({}, scales[axis].ticks, { callback: function (v) { return formats[f](v); } });
    });
    var valueAxis = spec.formats.y ? 'y' : 'x';
    config.options.plugins = config.options.plugins || {};
    config.options.plugins.tooltip = { callbacks: { label: function (ctx) {
      var raw = ctx.raw;
      var f = formats[spec.formats[valueAxis] || 'number'];
      if (raw !== null && typeof raw === 'object') {
        return (ctx.dataset.label ? ctx.dataset.label + ': ' : '') + (raw.label ? raw.label + ' ' : '') + formats[spec.formats.x || 'number'](raw.x) + ', ' + formats[spec.formats.y || 'number'](raw.y);
      }
      return (ctx.dataset.label ? ctx.dataset.label + ': ' : '') + f(raw);
    } } };
    new Chart(document.getElementById(spec.id), config);
    drawn++;
  });
  document.querySelectorAll('table.sortable').forEach(function (t) { new Tablesort(t); });
  document.documentElement.setAttribute('data-charts', String(drawn));
})();
`;

function renderSection(s: Section): string {
  const charts = (s.charts ?? [])
    .map(
      (c) =>
        `<figure${c.wide ? ' class="wide"' : ''}><figcaption>${escapeHtml(c.title)}</figcaption><div class="chart-box"><canvas id="${c.id}" role="img" aria-label="${escapeHtml(c.title)}"></canvas></div>` +
        `${c.note === undefined ? '' : `<div class="note">${escapeHtml(c.note)}</div>`}</figure>`,
    )
    .join('\n');
  return [
    `<section><h2>${escapeHtml(s.title)}</h2>`,
    s.intro === undefined ? '' : `<p class="intro">${escapeHtml(s.intro)}</p>`,
    charts === '' ? '' : `<div class="charts">${charts}</div>`,
    s.html ?? '',
    '</section>',
  ].join('\n');
}

/**
 * One self-contained page: styles, libraries, chart data and the script that draws them are all inline, so it opens
 * from file:// with no network.
 */
/** The headline figures as the row of cards every page starts with; `data-key` and `data-value` are what tests read. */
export function kpisHtml(headline: readonly Headline[]): string {
  return headline
    .map(
      (h) =>
        `<div class="kpi" data-key="${escapeHtml(h.key)}" data-value="${h.value}"><span class="value">${escapeHtml(h.text)}</span><span class="label">${escapeHtml(h.label)}</span></div>`,
    )
    .join('');
}

/** A self-contained page's head, up to `</head>`: nothing may load from elsewhere (the Content-Security-Policy). */
export function pageHead(title: string, style: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(title)}</title>
<style>${style}</style>
</head>`;
}

export function renderPage(page: Page): string {
  const charts = page.sections.flatMap((s) => s.charts ?? []);
  const kpis = kpisHtml(page.headline);
  return `${pageHead(page.title, PAGE_STYLE)}
<body>
<header><h1>${escapeHtml(page.title)}</h1><p class="sub">${escapeHtml(page.subtitle)}</p></header>
<main>
<div class="kpis">${kpis}</div>
${page.sections.map(renderSection).join('\n')}
</main>
<footer>Written by tcompact. Self-contained: charts drawn with Chart.js, tables sorted with tablesort, both inlined; nothing is loaded from the network. Click a column header to sort.</footer>
<script type="application/json" id="tcompact-charts">${jsonInScript(charts)}</script>
${libraryScripts()}
<script>${BOOT}</script>
</body>
</html>
`;
}
