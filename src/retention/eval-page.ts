import { join } from 'node:path';
import { int, pct } from '../report/format.js';
import { type ChartSpec, type PointSeries, barChart, colour, xyChart } from '../report/html/chart.js';
import { headLines } from '../report/html/head-lines.js';
import type { Page, Section } from '../report/html/page.js';
import { type Cell, num, sortableTable } from '../report/html/table.js';
import { writePage } from '../report/html/write-pages.js';
import { type EvalGroup, type EvalReport, type EvalRow, type LostProbe, ORIGINAL_ROW } from './eval-run.js';
import { PROBE_KINDS } from './probes.js';
import type { RowFigures } from './render-eval.js';

/** What the page shows of a row's score. */
type ScoreFigures = Pick<EvalRow['score'], 'byKind' | 'overall'>;

/** A row of eval.json (a strategy, the original, or the source's summary): the report's row with the figures eval adds. */
interface RowOnPage extends Pick<EvalRow, 'name' | 'tokensBefore' | 'tokensAfter' | 'hindsight'>, Pick<RowFigures, 'saved' | 'recall' | 'kindsMean'> {
  score: ScoreFigures;
}

type TranscriptEval = EvalReport['perTranscript'][number];

/** What the page shows of eval.json: the report, with the inputs and settings the command was given. */
export interface EvalPageInput extends Pick<EvalReport, 'transcripts' | 'probes' | 'byFormat' | 'byProject'> {
  inputs: readonly string[];
  settings: Readonly<Record<string, unknown>>;
  rows: readonly RowOnPage[];
  perTranscript: readonly (Pick<TranscriptEval, 'id' | 'tokensBefore'> & {
    rows: readonly (Pick<TranscriptEval['rows'][number], 'name' | 'tokensAfter'> & { score: Pick<ScoreFigures, 'overall'> })[];
  })[];
  reference: Pick<EvalReport['reference'], 'spans'> & { rows: readonly RowOnPage[] };
}

/** The groups side by side (source formats, projects): a row per group and strategy, tokens saved and probe recall. */
function groupSection(groups: Readonly<Record<string, EvalGroup>>, shown: { title: string; key: string; intro: string }): Section {
  const rows: Cell[][] = [];
  for (const [key, g] of Object.entries(groups)) {
    for (const r of g.rows) {
      const saved = r.tokensBefore > 0 ? 1 - r.tokensAfter / r.tokensBefore : 0;
      const t = r.score.overall;
      rows.push([key, r.name, num(g.transcripts), num(saved, pct(saved)), t.probes === 0 ? null : num(t.retained / t.probes, pct(t.retained / t.probes))]);
    }
  }
  return {
    title: shown.title,
    intro: shown.intro,
    html: sortableTable(
      [
        { label: shown.key },
        { label: 'row' },
        { label: 'transcripts', numeric: true },
        { label: 'tokens saved', numeric: true },
        { label: 'recall', numeric: true },
      ],
      rows,
    ),
  };
}

function groupSections(e: EvalPageInput): Section[] {
  return [
    ...(e.byFormat
      ? [
          groupSection(e.byFormat, {
            title: 'By source format',
            key: 'format',
            intro: 'Each strategy on the transcripts of each agent: tokens saved and probe recall.',
          }),
        ]
      : []),
    ...(e.byProject
      ? [
          groupSection(e.byProject, {
            title: 'By project',
            key: 'project',
            intro: 'Each strategy on the transcripts of each project: tokens saved and probe recall.',
          }),
        ]
      : []),
  ];
}

/** Transcripts drawn per strategy in the scatter, besides the strategy's total. */
const SCATTER_SAMPLE = 200;

const shareCell = (x: number | null): Cell => (x === null ? null : num(x, pct(x)));

/** The kinds of probe the inputs have, in eval.json's order. */
const probedKinds = (e: EvalPageInput) => PROBE_KINDS.filter((k) => e.probes[k] > 0);

/** Every n-th item, so that at most `max` remain, first and spread over the whole list. */
function sample<T>(items: readonly T[], max: number): T[] {
  if (items.length <= max) return [...items];
  const step = items.length / max;
  return Array.from({ length: max }, (_, i) => items[Math.floor(i * step)]);
}

function recallSection(e: EvalPageInput): Section {
  const kinds = probedKinds(e);
  const strategies = e.rows.filter((r) => r.name !== ORIGINAL_ROW);
  const columns = [...kinds, 'overall' as const];
  const bars = barChart(
    'recall-by-kind',
    'Recall by probe kind, per strategy',
    columns,
    strategies.map((r) => ({ label: r.name, data: columns.map((k) => r.recall[k] ?? 0) })),
    {
      value: 'percent',
      y: 'probes still in the compacted transcript',
      note: 'Share of the probes found in the original that the compacted transcript still holds.',
    },
  );
  const transcripts = sample(e.perTranscript, SCATTER_SAMPLE);
  const series: PointSeries[] = [];
  strategies.forEach((r, i) => {
    const points = transcripts.flatMap((t) => {
      const row = t.rows.find((x) => x.name === r.name);
      if (!row || row.score.overall.probes === 0 || t.tokensBefore === 0) return [];
      return [{ x: 1 - row.tokensAfter / t.tokensBefore, y: row.score.overall.retained / row.score.overall.probes }];
    });
    series.push({ label: `${r.name} (transcripts)`, points, colour: `${colour(i)}55`, radius: 2.5, legendHidden: true });
  });
  strategies.forEach((r, i) => {
    series.push({ label: r.name, points: r.recall.overall === null ? [] : [{ x: r.saved, y: r.recall.overall }], colour: colour(i), radius: 8 });
  });
  const scatter = xyChart('recall-vs-saved', 'Recall against tokens saved', series, {
    x: 'tokens saved',
    y: 'overall recall',
    xFormat: 'percent',
    yFormat: 'percent',
    note: `Large dots: each strategy over all transcripts; small dots: ${transcripts.length < e.perTranscript.length ? `${transcripts.length} of the ${e.perTranscript.length}` : 'the'} transcripts. Up and right is better.`,
  });
  const rows: Cell[][] = e.rows.map((r) => [
    r.name,
    num(r.tokensAfter),
    shareCell(r.saved),
    ...kinds.map((k) => shareCell(r.recall[k])),
    shareCell(r.recall.overall),
    shareCell(r.kindsMean),
  ]);
  return {
    title: 'Recall per strategy',
    intro: `${int(e.transcripts)} transcripts; probes: ${kinds.map((k) => `${k} ${int(e.probes[k])}`).join(', ')}.`,
    charts: [bars, scatter],
    html: sortableTable(
      [
        { label: 'strategy' },
        { label: 'tokens after', numeric: true },
        { label: 'saved', numeric: true },
        ...kinds.map((k) => ({ label: k, numeric: true })),
        { label: 'overall', numeric: true },
        { label: 'kinds mean', numeric: true },
      ],
      rows,
    ),
  };
}

const hindsightShare = (t: { probes: number; retained: number } | undefined) => (t && t.probes > 0 ? t.retained / t.probes : null);

function referenceSection(e: EvalPageInput): Section {
  if (e.reference.spans === 0)
    return {
      title: "The source's own summaries",
      intro: 'No transcript holds a compaction its source made with a summary (Claude Code, Codex, Gemini CLI, pi, OpenCode...).',
    };
  const rows = e.reference.rows.filter((r) => r.name !== ORIGINAL_ROW);
  const chart: ChartSpec = barChart(
    'reference',
    "The source's summary beside the strategies, on the spans it replaced",
    rows.map((r) => r.name),
    [
      { label: 'overall recall', data: rows.map((r) => r.recall.overall ?? 0) },
      { label: 'tokens saved', data: rows.map((r) => r.saved) },
    ],
    { value: 'percent' },
  );
  return {
    title: "The source's own summaries",
    intro:
      `${e.reference.spans} spans that the source compacted itself, scored like the strategies on the same messages; ` +
      '"checkpoint at the summary\'s size" is checkpoint held to the summary\'s own tokens on each span.',
    charts: [chart],
    html: sortableTable(
      [
        { label: 'row' },
        { label: 'tokens before', numeric: true },
        { label: 'tokens after', numeric: true },
        { label: 'compression', numeric: true },
        { label: 'saved', numeric: true },
        { label: 'overall recall', numeric: true },
        { label: 'kinds mean', numeric: true },
        { label: 'facts needed again', numeric: true },
        { label: 'of them paths', numeric: true },
      ],
      e.reference.rows.map((r) => [
        r.name,
        num(r.tokensBefore),
        num(r.tokensAfter),
        r.tokensAfter > 0 ? num(r.tokensBefore / r.tokensAfter, `${(r.tokensBefore / r.tokensAfter).toFixed(1)}x`) : null,
        shareCell(r.saved),
        shareCell(r.recall.overall),
        shareCell(r.kindsMean),
        shareCell(hindsightShare(r.hindsight?.overall)),
        shareCell(hindsightShare(r.hindsight?.byReason.path)),
      ]),
    ),
  };
}

function lostSection(e: EvalPageInput, lost: readonly LostProbe[]): Section {
  const kinds = probedKinds(e);
  const counts: Cell[][] = e.rows
    .filter((r) => r.name !== ORIGINAL_ROW)
    .map((r) => [r.name, ...kinds.map((k) => num(r.score.byKind[k].probes - r.score.byKind[k].retained))]);
  const detail = (p: LostProbe['probe']): string => {
    const { kind: _kind, ...rest } = p;
    const text = JSON.stringify(rest);
    return text.length > 240 ? `${text.slice(0, 239)}…` : text;
  };
  return {
    title: 'Lost probes',
    html:
      sortableTable([{ label: 'strategy' }, ...kinds.map((k) => ({ label: `${k} lost`, numeric: true }))], counts, 'Probes lost, by kind') +
      sortableTable(
        [{ label: 'kind' }, { label: 'strategy' }, { label: 'transcript' }, { label: 'probe' }],
        lost.map((l) => [l.probe.kind, l.compaction === undefined ? l.strategy : `${l.strategy} (span ${l.compaction})`, l.transcript, detail(l.probe)]),
        `The first ${lost.length} lost probes (lost.jsonl has them all)`,
      ),
  };
}

/** The page of an `eval` report. */
export function evalPage(e: EvalPageInput, lost: readonly LostProbe[]): Page {
  const kinds = probedKinds(e);
  return {
    title: 'tcompact eval report',
    subtitle: `Inputs: ${e.inputs.join(', ')} · settings ${JSON.stringify(e.settings)}`,
    headline: [
      { key: 'transcripts', label: 'transcripts', value: e.transcripts, text: int(e.transcripts) },
      ...kinds.map((k) => ({ key: `probes.${k}`, label: `${k} probes`, value: e.probes[k], text: int(e.probes[k]) })),
      { key: 'reference.spans', label: 'spans the source compacted', value: e.reference.spans, text: int(e.reference.spans) },
    ],
    sections: [recallSection(e), ...groupSections(e), referenceSection(e), lostSection(e, lost)],
  };
}

/** Lost probes listed on the eval page. */
const LOST_LISTED = 50;

/** DIR/eval.html beside eval.json, with the first lost probes of DIR/lost.jsonl. */
export async function writeEvalPage(outDir: string, report: EvalPageInput): Promise<string> {
  const lost = (await headLines(join(outDir, 'lost.jsonl'), LOST_LISTED, Number.POSITIVE_INFINITY)).map((l) => JSON.parse(l) as LostProbe);
  return writePage(join(outDir, 'eval.html'), evalPage(report, lost));
}
