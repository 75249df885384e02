import { CATEGORIES } from '../../tokens/breakdown.js';
import { COMPRESSION_BINS, type TranscriptSpread, WINDOW_STATUSES } from '../transcript-spread.js';
import { type ChartSpec, barChart } from './chart.js';
import { escapeHtml, formatInt, formatShare, formatUsd } from './escape.js';
import type { Headline, Page, Section } from './page.js';
import { type Cell, num, sortableTable } from './table.js';
import type { TranscriptLinks } from './transcript-pages.js';

/** LLM usage as report.json has it (the fields the page shows). */
interface LlmPageUsage {
  model: string;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number | null;
  failuresByCode: Record<string, number | undefined>;
  fallbacks: { count: number; examples: readonly { id: string; strategy: string; applied: readonly string[]; reason: string }[] };
}

/** What the run and compact pages show, from either command's report. */
export interface RunPageInput {
  tool: 'run' | 'compact';
  inputs: readonly string[];
  tokenizer: string;
  transcripts: number;
  tokens: { before: number; after: number; saved: number };
  /** Where each headline figure sits in the command's JSON report (the two reports name them differently). */
  keys: { before: string; after: string; saved: string };
  lines: { read: number; ok: number; failed: number; skipped: number };
  messages: { before: number; after: number };
  strategies: readonly { name: string; runs: number; skipped: number; tokensSaved: number; messagesChanged: number; messagesRemoved: number }[];
  byCategory: { before: Readonly<Record<string, number>>; after: Readonly<Record<string, number>> };
  spread: TranscriptSpread;
  errorsByCode: Readonly<Record<string, number>>;
  /** The errors file's name and its first lines. */
  errors: { file: string; head: readonly string[] };
  llm?: LlmPageUsage;
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
      y: `tokens (${r.tokenizer})`,
      note: `${formatInt(r.tokens.saved)} tokens saved, ${formatShare(r.tokens.before > 0 ? r.tokens.saved / r.tokens.before : 0)} of the archive.`,
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
    num(r.tokens.before > 0 ? s.tokensSaved / r.tokens.before : 0, formatShare(r.tokens.before > 0 ? s.tokensSaved / r.tokens.before : 0)),
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
    return [
      c,
      num(before),
      num(after),
      num(before - after),
      num(before > 0 ? (before - after) / before : 0, formatShare(before > 0 ? (before - after) / before : 0)),
    ];
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
      formatShare(t.tokensBefore > 0 ? (t.tokensBefore - t.tokensAfter) / t.tokensBefore : 0),
    ),
  ]);
  return {
    title: 'Per transcript',
    intro: `${formatInt(r.transcripts)} transcripts, against a context window of ${formatInt(s.window)} tokens.`,
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
    return { title: 'Errors', intro: `No input line failed (${formatInt(r.lines.read)} read, ${formatInt(r.lines.skipped)} skipped as not conversation).` };
  return {
    title: 'Errors',
    intro: `${formatInt(r.lines.failed)} of ${formatInt(r.lines.read)} input lines failed; each one is in ${r.errors.file}.`,
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

function llmSection(u: LlmPageUsage): Section {
  const failures = Object.entries(u.failuresByCode).filter((e): e is [string, number] => (e[1] ?? 0) > 0);
  const examples: Cell[][] = u.fallbacks.examples.map((f) => [f.id, f.strategy, f.applied.join(' + ') || 'unchanged', f.reason]);
  return {
    title: `LLM (${u.model})`,
    intro:
      `${formatInt(u.requests)} requests, ${formatInt(u.promptTokens)} prompt + ${formatInt(u.completionTokens)} completion tokens, ` +
      `cost ${u.costUsd === null ? 'unknown (no prices given)' : formatUsd(u.costUsd)}; ${formatInt(u.fallbacks.count)} transcripts fell back` +
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
    ['tokenizer', r.tokenizer],
  ];
  for (const [k, v] of Object.entries(r.settings)) if (v !== undefined) rows.push([k, typeof v === 'string' ? v : JSON.stringify(v)]);
  return { title: 'Settings', html: sortableTable([{ label: 'setting' }, { label: 'value' }], rows) };
}

/** The page of a `run` or `compact` report. */
export function runPage(r: RunPageInput): Page {
  const headline: Headline[] = [
    { key: 'transcripts', label: 'transcripts', value: r.transcripts, text: formatInt(r.transcripts) },
    { key: r.keys.before, label: `tokens before (${r.tokenizer})`, value: r.tokens.before, text: formatInt(r.tokens.before) },
    { key: r.keys.after, label: 'tokens after', value: r.tokens.after, text: formatInt(r.tokens.after) },
    {
      key: r.keys.saved,
      label: `tokens saved (${formatShare(r.tokens.before > 0 ? r.tokens.saved / r.tokens.before : 0)})`,
      value: r.tokens.saved,
      text: formatInt(r.tokens.saved),
    },
    { key: 'lines.failed', label: 'input lines failed', value: r.lines.failed, text: formatInt(r.lines.failed) },
  ];
  return {
    title: `tcompact ${r.tool} report`,
    subtitle: `Inputs: ${r.inputs.join(', ')} · messages ${formatInt(r.messages.before)} → ${formatInt(r.messages.after)}`,
    headline,
    sections: [...tokenSections(r), transcriptSection(r), errorSection(r), ...(r.llm ? [llmSection(r.llm)] : []), settingsSection(r)],
  };
}
