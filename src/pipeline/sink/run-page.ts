import { basename } from 'node:path';
import type { LlmRunUsage } from '../../llm/session.js';
import type { StrategyTotals } from '../../report/archive-report.js';
import { int, pct, usdShort } from '../../report/format.js';
import { type ChartSpec, barChart } from '../../report/html/chart.js';
import { escapeHtml } from '../../report/html/escape.js';
import { headLines } from '../../report/html/head-lines.js';
import type { Headline, Page, Section } from '../../report/html/page.js';
import { type Cell, num, sortableTable } from '../../report/html/table.js';
import { writePage } from '../../report/html/write-pages.js';
import { COMPRESSION_BINS, WINDOW_STATUSES } from '../../report/transcript-spread.js';
import { CATEGORIES } from '../../tokens/breakdown.js';
import type { RunReport } from './run-report.js';
import type { TranscriptLinks } from '../../report/html/transcript-pages.js';

/** What the page shows of the LLM steps' usage. */
type LlmFigures = Pick<LlmRunUsage, 'model' | 'requests' | 'promptTokens' | 'completionTokens' | 'costUsd' | 'failuresByCode' | 'fallbacks'>;

/** What the run and compact pages show of report.json, with the settings that produced it and the errors file's first lines. */
export interface RunPageInput extends Pick<
  RunReport,
  'inputs' | 'transcripts' | 'lines' | 'messages' | 'byCategory' | 'spread' | 'errorsByCode' | 'byProject'
> {
  tool: 'run' | 'compact';
  tokens: Pick<RunReport['tokens'], 'before' | 'after' | 'saved' | 'tokenizer'>;
  strategies: readonly Pick<StrategyTotals, 'name' | 'runs' | 'skipped' | 'tokensSaved' | 'messagesChanged' | 'messagesRemoved'>[];
  llm?: LlmFigures;
  /** The errors file's name and its first lines. */
  errors: { file: string; head: readonly string[] };
  settings: Readonly<Record<string, unknown>>;
  /** A run's pages of single transcripts (`tcompact view`): the table of the largest links to them. */
  links?: TranscriptLinks;
}

/** A transcript's id, linked to its page when it has one, else saying how to make it. */
function transcriptCell(id: string, links: TranscriptLinks | undefined): Cell {
  if (!links) return id;
  const href = links.pages.get(id);
  if (href !== undefined) return { text: id, href, title: 'Before and after, message by message' };
  return { text: id, title: `No page yet: tcompact view ${shellWord(links.runDir)} --id ${shellWord(id)}` };
}

/** A word as a shell reads it back: as it is when it is plain, else single-quoted. */
function shellWord(word: string): string {
  return /^[\w./:@%+=,#-]+$/.test(word) && !word.startsWith('#') ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

const TIER_LABELS: Record<string, string> = {
  ok: 'ok (<80%)',
  warning: 'warning (80–90%)',
  over_compaction_threshold: 'over threshold (90–98%)',
  over_hard_limit: 'over hard limit (≥98%)',
};

function tokenSections(r: RunPageInput): Section[] {
  const strategies = r.strategies.filter((s) => s.name !== 'sanitize' || s.tokensSaved !== 0);
  const categories = CATEGORIES.filter((c) => (r.byCategory.before[c] ?? 0) !== 0 || (r.byCategory.after[c] ?? 0) !== 0);
  const charts: ChartSpec[] = [
    barChart('tokens', 'Tokens before and after', ['before', 'after'], [{ label: 'tokens', data: [r.tokens.before, r.tokens.after] }], {
      y: `tokens (${r.tokens.tokenizer})`,
      note: `${int(r.tokens.saved)} tokens saved, ${pct(r.tokens.before > 0 ? r.tokens.saved / r.tokens.before : 0)} of the archive.`,
    }),
    barChart(
      'per-strategy',
      'Tokens saved per strategy',
      strategies.map((s) => s.name),
      [{ label: 'tokens saved', data: strategies.map((s) => s.tokensSaved) }],
      { horizontal: true, note: 'The strategies add up to the total saved: each transcript runs them in this order.' },
    ),
  ];
  const strategyRows: Cell[][] = r.strategies.map((s) => [
    s.name,
    num(s.tokensSaved),
    num(r.tokens.before > 0 ? s.tokensSaved / r.tokens.before : 0, pct(r.tokens.before > 0 ? s.tokensSaved / r.tokens.before : 0)),
    num(s.runs),
    num(s.skipped),
    num(s.messagesChanged),
    num(s.messagesRemoved),
  ]);
  const categoryChart = barChart(
    'per-category',
    'Tokens per category, before and after',
    ['before', 'after'],
    categories.map((c) => ({ label: c, data: [r.byCategory.before[c] ?? 0, r.byCategory.after[c] ?? 0], stack: 'tokens' })),
    { stacked: true, horizontal: true, note: 'Each bar is the whole archive; its segments are the categories.' },
  );
  const categoryRows: Cell[][] = categories.map((c) => {
    const before = r.byCategory.before[c] ?? 0;
    const after = r.byCategory.after[c] ?? 0;
    return [c, num(before), num(after), num(before - after), num(before > 0 ? (before - after) / before : 0, pct(before > 0 ? (before - after) / before : 0))];
  });
  return [
    {
      title: 'Tokens',
      charts,
      html: sortableTable(
        [
          { label: 'strategy' },
          { label: 'tokens saved', numeric: true },
          { label: 'of before', numeric: true },
          { label: 'runs', numeric: true },
          { label: 'skipped', numeric: true },
          { label: 'messages changed', numeric: true },
          { label: 'messages removed', numeric: true },
        ],
        strategyRows,
      ),
    },
    {
      title: 'Per category',
      charts: [categoryChart],
      html: sortableTable(
        [
          { label: 'category' },
          { label: 'before', numeric: true },
          { label: 'after', numeric: true },
          { label: 'saved', numeric: true },
          { label: 'share saved', numeric: true },
        ],
        categoryRows,
      ),
    },
  ];
}

/** The projects side by side: each one's tokens before and after. */
function projectSection(byProject: NonNullable<RunPageInput['byProject']>): Section {
  const projects = Object.entries(byProject);
  return {
    title: 'By project',
    intro: 'Each project (the folder its sessions worked in, as their agent recorded it): its transcripts and tokens.',
    charts: [
      barChart(
        'per-project',
        'Tokens before and after, by project',
        projects.map(([name]) => name),
        [
          { label: 'before', data: projects.map(([, p]) => p.tokensBefore) },
          { label: 'after', data: projects.map(([, p]) => p.tokensAfter) },
        ],
        { horizontal: true },
      ),
    ],
    html: sortableTable(
      [
        { label: 'project' },
        { label: 'transcripts', numeric: true },
        { label: 'tokens before', numeric: true },
        { label: 'after', numeric: true },
        { label: 'saved', numeric: true },
        { label: 'share saved', numeric: true },
      ],
      projects.map(([name, p]): Cell[] => [
        name,
        num(p.transcripts),
        num(p.tokensBefore),
        num(p.tokensAfter),
        num(p.tokensSaved),
        num(p.savedShare, pct(p.savedShare)),
      ]),
    ),
  };
}

function transcriptSection(r: RunPageInput): Section {
  const s = r.spread;
  const step = 100 / COMPRESSION_BINS;
  const bins = s.compression.map((_, i) => `${i * step}–${(i + 1) * step}%`);
  const tiers = WINDOW_STATUSES.map((t) => TIER_LABELS[t]);
  const largest: Cell[][] = s.largest.map((t) => [
    transcriptCell(t.id, r.links),
    `${t.file}:${t.line}`,
    num(t.tokensBefore),
    num(t.tokensAfter),
    num(
      t.tokensBefore > 0 ? (t.tokensBefore - t.tokensAfter) / t.tokensBefore : 0,
      pct(t.tokensBefore > 0 ? (t.tokensBefore - t.tokensAfter) / t.tokensBefore : 0),
    ),
  ]);
  return {
    title: 'Per transcript',
    intro: `${int(r.transcripts)} transcripts, against a context window of ${int(s.window)} tokens.`,
    charts: [
      barChart('compression', 'Transcripts by share of tokens saved', bins, [{ label: 'transcripts', data: s.compression }], {
        value: 'number',
        x: 'tokens saved',
        y: 'transcripts',
      }),
      barChart(
        'tiers',
        'Context-window tiers before and after',
        tiers,
        [
          { label: 'before', data: WINDOW_STATUSES.map((t) => s.tiers.before[t]) },
          { label: 'after', data: WINDOW_STATUSES.map((t) => s.tiers.after[t]) },
        ],
        { value: 'number', y: 'transcripts' },
      ),
    ],
    html: sortableTable(
      [
        { label: 'transcript' },
        { label: 'source' },
        { label: 'tokens before', numeric: true },
        { label: 'after', numeric: true },
        { label: 'saved', numeric: true },
      ],
      largest,
      `The ${largest.length} largest transcripts`,
    ),
  };
}

function errorSection(r: RunPageInput): Section {
  const codes = Object.entries(r.errorsByCode);
  if (codes.length === 0)
    return { title: 'Errors', intro: `No input line failed (${int(r.lines.read)} read, ${int(r.lines.skipped)} skipped as not conversation).` };
  return {
    title: 'Errors',
    intro: `${int(r.lines.failed)} of ${int(r.lines.read)} input lines failed; each one is in ${r.errors.file}.`,
    charts: [
      barChart(
        'errors',
        'Failed input lines by code',
        codes.map(([c]) => c),
        [{ label: 'lines', data: codes.map(([, n]) => n) }],
        { value: 'number', horizontal: true },
      ),
    ],
    html: `${sortableTable(
      [{ label: 'code' }, { label: 'lines', numeric: true }],
      codes.map(([c, n]) => [c, num(n)]),
    )}<p class="intro">The first lines of ${escapeHtml(r.errors.file)}:</p><pre>${escapeHtml(r.errors.head.join('\n'))}</pre>`,
  };
}

function llmSection(u: LlmFigures): Section {
  const failures = Object.entries(u.failuresByCode).filter((e): e is [string, number] => (e[1] ?? 0) > 0);
  const examples: Cell[][] = u.fallbacks.examples.map((f) => [f.id, f.strategy, f.applied.join(' + ') || 'unchanged', f.reason]);
  return {
    title: `LLM (${u.model})`,
    intro:
      `${int(u.requests)} requests, ${int(u.promptTokens)} prompt + ${int(u.completionTokens)} completion tokens, ` +
      `cost ${u.costUsd === null ? 'unknown (no prices given)' : usdShort(u.costUsd)}; ${int(u.fallbacks.count)} transcripts fell back` +
      `${failures.length > 0 ? `; failed requests: ${failures.map(([c, n]) => `${c} ${n}`).join(', ')}` : ''}.`,
    charts: [
      barChart('llm-tokens', 'LLM tokens', ['prompt', 'completion'], [{ label: 'tokens', data: [u.promptTokens, u.completionTokens] }], { horizontal: true }),
    ],
    html:
      examples.length === 0
        ? ''
        : sortableTable(
            [{ label: 'transcript' }, { label: 'step' }, { label: 'instead' }, { label: 'reason' }],
            examples,
            'Transcripts that fell back, and why',
          ),
  };
}

function settingsSection(r: RunPageInput): Section {
  const rows: Cell[][] = [
    ['inputs', r.inputs.join(', ')],
    ['tokenizer', r.tokens.tokenizer],
  ];
  for (const [k, v] of Object.entries(r.settings)) if (v !== undefined) rows.push([k, typeof v === 'string' ? v : JSON.stringify(v)]);
  return { title: 'Settings', html: sortableTable([{ label: 'setting' }, { label: 'value' }], rows) };
}

/** The page of a `run` or `compact` report. */
export function runPage(r: RunPageInput): Page {
  const headline: Headline[] = [
    { key: 'transcripts', label: 'transcripts', value: r.transcripts, text: int(r.transcripts) },
    { key: 'tokens.before', label: `tokens before (${r.tokens.tokenizer})`, value: r.tokens.before, text: int(r.tokens.before) },
    { key: 'tokens.after', label: 'tokens after', value: r.tokens.after, text: int(r.tokens.after) },
    {
      key: 'tokens.saved',
      label: `tokens saved (${pct(r.tokens.before > 0 ? r.tokens.saved / r.tokens.before : 0)})`,
      value: r.tokens.saved,
      text: int(r.tokens.saved),
    },
    { key: 'lines.failed', label: 'input lines failed', value: r.lines.failed, text: int(r.lines.failed) },
  ];
  return {
    title: `tcompact ${r.tool} report`,
    subtitle: `Inputs: ${r.inputs.join(', ')} · messages ${int(r.messages.before)} → ${int(r.messages.after)}`,
    headline,
    sections: [
      ...tokenSections(r),
      ...(r.byProject ? [projectSection(r.byProject)] : []),
      transcriptSection(r),
      errorSection(r),
      ...(r.llm ? [llmSection(r.llm)] : []),
      settingsSection(r),
    ],
  };
}

/** Lines of the errors file shown on the page. */
const ERROR_LINES = 10;

/** Where a run's page goes and the errors file it quotes: DIR/report.html for `run`, FILE.report.html for `compact`. */
interface RunPagePaths {
  html: string;
  errors: string;
}

/**
 * The page of a run or compact report, beside its report.json; `settings` are those that produced it, `links` the
 * run's pages of single transcripts (`tcompact view`).
 */
export async function writeRunPage(
  paths: RunPagePaths,
  tool: 'run' | 'compact',
  report: Omit<RunPageInput, 'tool' | 'errors' | 'settings' | 'links'>,
  settings: Record<string, unknown>,
  links?: TranscriptLinks,
): Promise<string> {
  const errors = { file: basename(paths.errors), head: await headLines(paths.errors, ERROR_LINES) };
  return writePage(paths.html, runPage({ ...report, tool, errors, settings, ...(links && { links }) }));
}
