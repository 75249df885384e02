import { join } from 'node:path';
import { NO_VALUE, int, pct, usdFine, usdShort } from '../report/format.js';
import { type PointSeries, barChart, xyChart } from '../report/html/chart.js';
import type { Page, Section } from '../report/html/page.js';
import { type Cell, num, sortableTable } from '../report/html/table.js';
import { writePage } from '../report/html/write-pages.js';
import type { ByGroup, PolicyTotals, SimulationReport } from './simulation-report.js';
import { billedModelNames, byModelRows, priceSource } from './by-model.js';
import { compactionCallsText } from './compaction-calls-text.js';
import { fidelityLine, offByText } from './fidelity/fidelity-summary.js';
import { FIDELITY_NOTE, callsText, causesText, unloggedText } from './fidelity/render-fidelity.js';
import type { FidelityPair } from './fidelity/session-fidelity.js';
import type { TranscriptSimulation } from './transcript-replay.js';

/** What the page shows of a policy's totals. */
type PolicyFigures = Pick<
  PolicyTotals,
  | 'name'
  | 'summary'
  | 'calls'
  | 'billedInput'
  | 'cachedInput'
  | 'compactions'
  | 'microCompactions'
  | 'peakPrompt'
  | 'callsOverHardLimit'
  | 'callsOverWindow'
  | 'stuckTranscripts'
  | 'reductionVsNone'
  | 'cost'
  | 'compactionCalls'
  | 'hindsight'
  | 'regret'
> &
  Partial<Pick<PolicyTotals, 'byModel'>>;

/** A policy's saving with caching against `none`'s cost. */
function savingCell(withCache: number, none: number): Cell {
  const saving = none > 0 ? 1 - withCache / none : 0;
  return num(saving, pct(saving));
}

/** What the page shows of simulate.json: the report, with the inputs the command was given. */
export interface SimulatePageInput extends Pick<
  SimulationReport,
  'tokenizer' | 'window' | 'transcripts' | 'recorded' | 'trace' | 'byFormat' | 'byProject' | 'modelPrices' | 'fidelity'
> {
  /** Each transcript's fidelity, for the table (the rest of each transcript's figures is not shown). */
  perTranscript?: readonly Pick<TranscriptSimulation, 'id' | 'file' | 'line' | 'fidelity'>[];
  inputs: readonly string[];
  thresholds: Pick<SimulationReport['thresholds'], 'compaction'>;
  policies: readonly PolicyFigures[];
}

/** The groups side by side (source formats, projects): a row per group, each policy's cost with caching and its input against `none`. */
function byGroupSection(s: SimulatePageInput, groups: ByGroup, shown: { title: string; key: string; intro: string }): Section {
  const names = s.policies.map((p) => p.name);
  return {
    title: shown.title,
    intro: shown.intro,
    html: sortableTable(
      [
        { label: shown.key },
        { label: 'transcripts', numeric: true },
        ...names.flatMap((n) => [
          { label: `${n}: cost`, numeric: true },
          { label: `${n}: input vs none`, numeric: true },
        ]),
      ],
      Object.entries(groups).map(([key, g]): Cell[] => [
        key,
        num(g.transcripts),
        ...names.flatMap((n): Cell[] => {
          const p = g.policies[n];
          return p ? [num(p.cost.withCache, usdShort(p.cost.withCache)), num(-p.reductionVsNone, pct(-p.reductionVsNone))] : [null, null];
        }),
      ]),
    ),
  };
}

function byGroupSections(s: SimulatePageInput): Section[] {
  return [
    ...(s.byFormat
      ? [
          byGroupSection(s, s.byFormat, {
            title: 'By source format',
            key: 'format',
            intro: 'Each policy on the transcripts of each agent: cost with caching, and input billed against no compaction.',
          }),
        ]
      : []),
    ...(s.byProject
      ? [
          byGroupSection(s, s.byProject, {
            title: 'By project',
            key: 'project',
            intro: 'Each policy on the transcripts of each project: cost with caching, and input billed against no compaction.',
          }),
        ]
      : []),
  ];
}

/** Points per policy on the prompt chart; longer runs keep every n-th call (and the last). */
const MAX_POINTS = 4000;

function tracePoints(prompts: readonly number[]): { x: number; y: number }[] {
  const step = Math.max(1, Math.ceil(prompts.length / MAX_POINTS));
  const points: { x: number; y: number }[] = [];
  for (let i = 0; i < prompts.length; i += step) points.push({ x: i + 1, y: prompts[i] });
  if ((prompts.length - 1) % step !== 0) points.push({ x: prompts.length, y: prompts[prompts.length - 1] });
  return points;
}

function hindsightCell(p: PolicyFigures): Cell {
  const t = p.hindsight?.overall;
  if (!t || t.probes === 0) return null;
  return num(t.retained / t.probes, `${pct(t.retained / t.probes)} (${int(t.retained)}/${int(t.probes)})`);
}

function costSection(s: SimulatePageInput): Section {
  const names = s.policies.map((p) => p.name);
  const withCalls = s.policies.some((p) => p.compactionCalls !== undefined);
  const withHindsight = s.policies.some((p) => p.hindsight !== undefined);
  const none = s.policies[0].cost.withCache;
  const rows: Cell[][] = s.policies.map((p) => [
    p.name,
    num(p.calls),
    num(p.billedInput),
    num(p.cachedInput),
    num(p.reductionVsNone, pct(p.reductionVsNone)),
    ...(withCalls ? [p.compactionCalls ? num(p.compactionCalls.cost, compactionCallsText(p.compactionCalls, usdShort)) : num(0, NO_VALUE)] : []),
    num(p.cost.withoutCache, usdShort(p.cost.withoutCache)),
    num(p.cost.withCache, usdShort(p.cost.withCache)),
    p === s.policies[0] ? num(0, NO_VALUE) : savingCell(p.cost.withCache, none),
    p.regret ? num(p.regret.total, usdShort(p.regret.total)) : num(0, NO_VALUE),
    num(p.compactions),
    num(p.microCompactions),
    num(p.peakPrompt),
    num(p.stuckTranscripts),
    num(p.callsOverHardLimit),
    num(p.callsOverWindow),
    ...(withHindsight ? [hindsightCell(p)] : []),
  ]);
  return {
    title: 'Billed input and cost per policy',
    intro: `${int(s.transcripts)} transcripts replayed as agent loops against a ${int(s.window)}-token window (${s.tokenizer}).`,
    charts: [
      barChart(
        'billed-input',
        'Input tokens billed, and the part read from the cache',
        names,
        [
          { label: 'billed input', data: s.policies.map((p) => p.billedInput) },
          { label: 'of it cached', data: s.policies.map((p) => p.cachedInput) },
        ],
        { horizontal: true },
      ),
      barChart(
        'cost',
        'Cost without and with prompt caching',
        names,
        [
          { label: 'without caching', data: s.policies.map((p) => p.cost.withoutCache) },
          { label: 'with caching', data: s.policies.map((p) => p.cost.withCache) },
        ],
        { horizontal: true, value: 'usd' },
      ),
    ],
    html:
      sortableTable(
        [
          { label: 'policy' },
          { label: 'calls', numeric: true },
          { label: 'billed input', numeric: true },
          { label: 'cached', numeric: true },
          { label: 'vs none', numeric: true },
          ...(withCalls ? [{ label: 'compaction calls', numeric: true }] : []),
          { label: 'cost', numeric: true },
          { label: 'cost cached', numeric: true },
          { label: 'saving cached vs none', numeric: true },
          { label: 'regret vs optimal', numeric: true },
          { label: 'compactions', numeric: true },
          { label: 'micro', numeric: true },
          { label: 'peak prompt', numeric: true },
          { label: 'stuck', numeric: true },
          { label: 'calls ≥ hard limit', numeric: true },
          { label: 'calls > window', numeric: true },
          ...(withHindsight ? [{ label: 'hindsight recall', numeric: true }] : []),
        ],
        rows,
      ) +
      sortableTable(
        [{ label: 'policy' }, { label: 'what it does' }],
        s.policies.map((p) => [p.name, p.summary]),
        'The policies',
      ),
  };
}

function traceSection(s: SimulatePageInput): Section {
  const trace = s.trace;
  if (trace === undefined) return { title: 'Prompt size over one transcript', intro: 'No transcript made a model call.' };
  const calls = Math.max(...Object.values(trace.prompts).map((p) => p.length));
  const series: PointSeries[] = s.policies.map((p) => ({ label: p.name, points: tracePoints(trace.prompts[p.name] ?? []), line: true }));
  const flat = (label: string, y: number, colour: string): PointSeries => ({
    label,
    points: [
      { x: 1, y },
      { x: Math.max(calls, 2), y },
    ],
    line: true,
    colour,
  });
  series.push(flat('window', s.window, '#555555'), flat('compaction threshold', s.thresholds.compaction * s.window, '#aaaaaa'));
  return {
    title: 'Prompt size over one transcript',
    intro: `${trace.id} (${trace.file}:${trace.line}), the largest transcript: ${int(calls)} calls. Each compaction shows as a drop.`,
    charts: [
      xyChart('prompt-trace', 'Prompt tokens of each call, per policy', series, {
        x: 'model call',
        y: 'prompt tokens',
        yFormat: 'compact',
        yFromZero: true,
        wide: true,
      }),
    ],
  };
}

function failureSection(s: SimulatePageInput): Section {
  return {
    title: 'Stuck runs and overflows',
    intro: 'A run is stuck when compactions in a row leave the prompt above the trigger; an overflow is a call at or above the hard limit, or past the window.',
    charts: [
      barChart(
        'failures',
        'Stuck transcripts and calls over the limits',
        s.policies.map((p) => p.name),
        [
          { label: 'stuck transcripts', data: s.policies.map((p) => p.stuckTranscripts) },
          { label: 'calls ≥ hard limit', data: s.policies.map((p) => p.callsOverHardLimit) },
          { label: 'calls > window', data: s.policies.map((p) => p.callsOverWindow) },
        ],
        { value: 'number' },
      ),
    ],
  };
}

/** Each policy's cost by model (and the record's), and the rates each model was billed at with their source. */
function byModelSection(s: SimulatePageInput): Section[] {
  const models = billedModelNames(s.modelPrices);
  if (!s.modelPrices || models.length === 0) return [];
  const prices = s.modelPrices;
  const rows = byModelRows(s.policies, s.recorded);
  const costs = sortableTable(
    [{ label: 'policy' }, ...models.map((m) => ({ label: m, numeric: true })), { label: 'compaction calls', numeric: true }, { label: 'total', numeric: true }],
    rows.map((x): Cell[] => [
      x.label,
      ...models.map((m): Cell => {
        const share = x.byModel[m];
        return share ? num(share.cost.withCache, `${usdFine(share.cost.withCache)} (${int(share.calls)} calls)`) : null;
      }),
      x.compactionCalls > 0 ? num(x.compactionCalls, usdFine(x.compactionCalls)) : null,
      num(x.total, usdFine(x.total)),
    ]),
    'Cost with caching by model',
  );
  const rates = sortableTable(
    [
      { label: 'model' },
      { label: 'source' },
      ...['input', 'cache write 5m', 'cache write 1h', 'cache read', 'output'].map((label) => ({ label, numeric: true })),
    ],
    models.map((m): Cell[] => {
      const x = prices[m].rates;
      return [m, priceSource(prices[m]), ...[x.input, x.cacheWrite5m, x.cacheWrite1h, x.cacheRead, x.output].map((v) => num(v, `$${v}`))];
    }),
    'US dollars per million tokens',
  );
  return [
    {
      title: 'By model',
      intro:
        "Each call is billed at the prices of the model that answered it (its reply's recorded model, else its transcript's). The models' costs add up to the total, " +
        "less the compaction calls, billed apart. The rates come from the built-in table, --prices FILE ('file') or the defaults; a --price-* flag given wins.",
      html: costs + rates,
    },
  ];
}

function recordedSection(s: SimulatePageInput): Section[] {
  const r = s.recorded;
  if (r === undefined) return [];
  return [
    {
      title: 'Recorded usage',
      intro: `${int(r.transcripts)} transcripts carry the usage their source recorded: ${int(r.usage.calls)} calls, ${int(r.usage.input)} input tokens, ${usdShort(r.usage.cost.withCache)} with caching; the 'none' replay of the same transcripts bills ${int(r.simulatedNone.billedInput)} input tokens, ${usdShort(r.simulatedNone.cost.withCache)}${
        r.simulatedSource
          ? `; the 'source' replay, compacting where the sessions did (its compaction calls left out, as sources record them apart), ${int(r.simulatedSource.billedInput)}, ${usdShort(r.simulatedSource.cost.withCache)}`
          : ''
      }.`,
    },
  ];
}

/** A session id short enough for a narrow column: a long leading id cut to 8 characters, a subagent's suffix kept. */
function shortId(id: string): string {
  const [head, ...rest] = id.split(':');
  return [head.length > 13 ? `${head.slice(0, 8)}…` : head, ...rest].join(':');
}

/** Each session's replay against its record, and the archive's summary. */
function fidelitySection(s: SimulatePageInput): Section[] {
  if (!s.fidelity) return [];
  const pairCells = (p: FidelityPair, money = false): Cell[] => [
    num(p.recorded, money ? usdFine(p.recorded) : int(p.recorded)),
    num(p.replayed, money ? usdFine(p.replayed) : int(p.replayed)),
    p.offBy === null ? null : num(p.offBy, offByText(p)),
  ];
  const rows = (s.perTranscript ?? []).flatMap((t): Cell[][] => {
    const f = t.fidelity;
    if (!f) return [];
    const d = f.departure;
    return [
      [
        { text: shortId(t.id), title: `${t.id} (${t.file}:${t.line})` },
        f.perCall ? num(f.calls.recorded) : num(0, callsText(f)),
        ...pairCells(f.input),
        ...pairCells(f.cacheWrites),
        ...pairCells(f.inputCost, true),
        num(f.unlogged.share, unloggedText(f)),
        d ? num(d.call) : null,
        d ? num(d.recorded) : null,
        d ? num(d.replayed) : null,
        causesText(f),
      ],
    ];
  });
  const numeric = (label: string) => ({ label, numeric: true });
  return [
    {
      title: 'The replay against the record',
      intro: `${fidelityLine(s.fidelity)} ${FIDELITY_NOTE}`,
      html: sortableTable(
        [
          { label: 'session' },
          numeric('calls'),
          ...['input', 'writes', 'input cost'].flatMap((x) => [numeric(`${x} recorded`), numeric(`${x} replayed`), numeric(`${x} off`)]),
          numeric('unlogged'),
          numeric('first call off'),
          numeric('its prompt recorded'),
          numeric('its prompt replayed'),
          { label: 'what was there' },
        ],
        rows,
      ),
    },
  ];
}

/** The page of a `simulate` report. */
export function simulatePage(s: SimulatePageInput): Page {
  const none = s.policies[0];
  return {
    title: 'tcompact simulate report',
    subtitle: `Inputs: ${s.inputs.join(', ')}`,
    headline: [
      { key: 'transcripts', label: 'transcripts', value: s.transcripts, text: int(s.transcripts) },
      { key: 'policies.0.calls', label: 'model calls', value: none.calls, text: int(none.calls) },
      { key: 'policies.0.billedInput', label: 'input billed without compaction', value: none.billedInput, text: int(none.billedInput) },
      { key: 'policies.0.cost.withCache', label: 'cost without compaction, cached', value: none.cost.withCache, text: usdShort(none.cost.withCache) },
    ],
    sections: [costSection(s), ...byModelSection(s), ...byGroupSections(s), traceSection(s), failureSection(s), ...recordedSection(s), ...fidelitySection(s)],
  };
}

/** DIR/simulate.html beside simulate.json. */
export async function writeSimulatePage(outDir: string, report: SimulatePageInput): Promise<string> {
  return writePage(join(outDir, 'simulate.html'), simulatePage(report));
}
