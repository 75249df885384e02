import { join } from 'node:path';
import { NO_VALUE, int, pct, usdShort } from '../report/format.js';
import { colour, xyChart } from '../report/html/chart.js';
import { escapeHtml } from '../report/html/escape.js';
import type { Page } from '../report/html/page.js';
import { num, sortableTable } from '../report/html/table.js';
import { writePage } from '../report/html/write-pages.js';
import { fidelityLine } from '../replay/fidelity/fidelity-summary.js';
import { boundCell } from './render-tune.js';
import type { TuneReport, TuneResult } from './tune-run.js';

/** What the page shows of tune.json: the report, with the inputs the command was given. */
export interface TunePageInput extends Pick<
  TuneReport,
  'transcripts' | 'recallFloor' | 'tools' | 'baselines' | 'candidates' | 'recommended' | 'exports' | 'fidelity' | 'frontier'
> {
  inputs: readonly string[];
}

const point = (r: TuneResult) => ({ x: r.cost.withCache, y: r.hindsightRecall });

/** Each setting's row; its saving with caching against `none`'s cost beside its cost. */
function resultRows(rows: readonly TuneResult[], none: TuneResult) {
  return rows.map((r) => [
    r.name + (r.frontier ? ' *' : ''),
    num(r.cost.withCache, usdShort(r.cost.withCache)),
    r === none || none.cost.withCache === 0
      ? num(0, NO_VALUE)
      : num(1 - r.cost.withCache / none.cost.withCache, pct(1 - r.cost.withCache / none.cost.withCache)),
    num(r.cost.withoutCache, usdShort(r.cost.withoutCache)),
    num(r.billedInput),
    num(r.hindsightRecall, pct(r.hindsightRecall)),
    num(r.hindsight.points),
    r.againstBound ? num(r.againstBound.times, boundCell(r)) : num(0, NO_VALUE),
  ]);
}

/** tune.html: cost against recall, one point per candidate, the frontier drawn; then the tools and the exports. */
export function tunePage(t: TunePageInput): Page {
  const frontier = t.candidates.filter((c) => c.frontier).sort((a, b) => a.cost.withCache - b.cost.withCache);
  const chart = xyChart(
    'tune-frontier',
    'Cost with caching against hindsight recall',
    [
      { label: 'candidates', points: t.candidates.map(point), colour: colour(0) },
      { label: 'frontier', points: frontier.map(point), colour: colour(1), line: true },
      { label: 'recommended', points: [point(t.recommended)], colour: colour(3), radius: 8 },
      { label: 'none', points: [point(t.baselines.none)], colour: colour(9), radius: 6 },
      { label: 'default', points: [point(t.baselines.default)], colour: colour(2), radius: 6 },
      { label: 'optimal', points: [point(t.baselines.optimal)], colour: colour(4), radius: 6 },
      { label: 'optimal-results', points: [point(t.baselines.optimalResults)], colour: colour(5), radius: 6 },
      { label: 'frontier found (optimal@R)', points: t.frontier.map((f) => ({ x: f.found.cost, y: f.found.recall })), colour: colour(6), line: true },
      { label: 'bound', points: t.frontier.map((f) => ({ x: f.bound, y: f.floor })), colour: colour(7), line: true },
    ],
    {
      x: 'cost with caching (USD)',
      y: 'hindsight recall',
      xFormat: 'usd',
      yFormat: 'percent',
      wide: true,
      note: 'Up and to the left is better; the line joins the candidates no other beats on both. The bound: no schedule of optimal’s edits reaching a recall costs less than it at that recall.',
    },
  );
  const columns = [
    { label: 'setting' },
    { label: 'cost with caching', numeric: true },
    { label: 'saving cached vs none', numeric: true },
    { label: 'without caching', numeric: true },
    { label: 'input billed', numeric: true },
    { label: 'hindsight recall', numeric: true },
    { label: 'edits', numeric: true },
    { label: 'vs bound at its recall', numeric: true },
  ];
  const rec = t.recommended;
  return {
    title: 'tcompact tune report',
    subtitle: `Inputs: ${t.inputs.join(', ')}`,
    headline: [
      { key: 'transcripts', label: 'transcripts', value: t.transcripts, text: int(t.transcripts) },
      {
        key: 'baselines.none.cost.withCache',
        label: 'cost without compaction, cached',
        value: t.baselines.none.cost.withCache,
        text: usdShort(t.baselines.none.cost.withCache),
      },
      { key: 'recommended.cost.withCache', label: `recommended (${rec.name}), cached`, value: rec.cost.withCache, text: usdShort(rec.cost.withCache) },
      { key: 'recommended.hindsightRecall', label: 'its hindsight recall', value: rec.hindsightRecall, text: pct(rec.hindsightRecall) },
    ],
    sections: [
      {
        title: 'Candidates',
        intro: rec.meetsFloor
          ? `The cheapest with caching that keeps at least ${pct(t.recallFloor)} of what the sessions needed again: ${rec.name}.`
          : `No candidate keeps ${pct(t.recallFloor)} of what the sessions needed again; ${rec.name} keeps most.`,
        charts: [chart],
        html: sortableTable(
          columns,
          resultRows([t.baselines.none, t.baselines.default, t.baselines.optimal, t.baselines.optimalResults, ...t.candidates], t.baselines.none),
          '* on the frontier',
        ),
      },
      ...(t.fidelity
        ? [
            {
              title: 'The replay against the record',
              intro: `${fidelityLine(t.fidelity)} The figures above rest on that replay; simulate gives the table per session.`,
            },
          ]
        : []),
      {
        title: 'Tools',
        intro: "Each tool's results in all the tokens of the archive, and how often the session used the file or command of a call again after its result.",
        html: sortableTable(
          [
            { label: 'tool' },
            { label: 'calls', numeric: true },
            { label: 'result tokens', numeric: true },
            { label: 'share', numeric: true },
            { label: 'needed again', numeric: true },
          ],
          t.tools.map((u) => [
            u.tool,
            num(u.calls),
            num(u.resultTokens),
            num(u.share, pct(u.share)),
            u.neededRate === null ? null : num(u.neededRate, pct(u.neededRate)),
          ]),
        ),
      },
      {
        title: 'Exports',
        intro: "Each file loads as it is in its runtime, and was replayed with that runtime's semantics.",
        html:
          sortableTable(
            [
              { label: 'runtime' },
              { label: 'file' },
              { label: 'exact' },
              { label: 'cost with caching', numeric: true },
              { label: 'hindsight recall', numeric: true },
              { label: 'note' },
            ],
            t.exports.map((e) => [
              e.runtime,
              e.file,
              e.exact ? 'yes' : 'closest',
              num(e.cost.withCache, usdShort(e.cost.withCache)),
              num(e.hindsightRecall, pct(e.hindsightRecall)),
              e.note ?? '',
            ]),
          ) + `<pre>${escapeHtml(JSON.stringify(rec.policy.settings ?? {}, null, 2))}</pre>`,
      },
    ],
  };
}

/** DIR/tune.html beside tune.json. */
export async function writeTunePage(outDir: string, report: TunePageInput): Promise<string> {
  return writePage(join(outDir, 'tune.html'), tunePage(report));
}
