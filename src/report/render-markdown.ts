import { CATEGORIES } from '../tokens/breakdown.js';
import type { ArchiveReport, StrategyTotals } from './archive-report.js';
import { percent } from './format.js';
import { markdownTable } from './markdown-table.js';

export interface RenderOptions {
  /** Include the time column (leave it out where output is compared or published). @default true */
  timings?: boolean;
}

function details(s: StrategyTotals): string {
  return Object.entries(s.details)
    .filter(([, n]) => n !== 0)
    .map(([key, n]) => `${key} ${n}`)
    .join(', ');
}

/** One row per strategy and a total row: tokens saved, share of the tokens before, messages changed and removed. */
export function renderStrategyTable(report: ArchiveReport, options: RenderOptions = {}): string[] {
  const timings = options.timings ?? true;
  const header = ['strategy', 'tokens saved', 'of before', 'changed', 'removed', ...(timings ? ['ms'] : []), 'details'];
  const align = `lrrrr${timings ? 'r' : ''}l`;
  const row = (name: string, saved: number, changed: number, removed: number, ms: number, text: string) => [
    name,
    String(saved),
    percent(saved, report.tokensBefore),
    String(changed),
    String(removed),
    ...(timings ? [ms.toFixed(0)] : []),
    text,
  ];
  const rows = report.strategies.map((s) => row(s.name, s.tokensSaved, s.messagesChanged, s.messagesRemoved, s.ms, details(s)));
  const sum = (f: (s: StrategyTotals) => number) => report.strategies.reduce((n, s) => n + f(s), 0);
  rows.push(
    row(
      'total',
      report.tokensSaved,
      sum((s) => s.messagesChanged),
      sum((s) => s.messagesRemoved),
      sum((s) => s.ms),
      '',
    ),
  );
  return markdownTable(header, rows, align, { layout: 'padded' });
}

/** Tokens per category before and after, and saved: one row per category that has any. */
export function renderCategoryTable({ before, after }: ArchiveReport['byCategory']): string[] {
  const rows = CATEGORIES.filter((c) => before[c] !== 0 || after[c] !== 0).map((c) => [c, String(before[c]), String(after[c]), String(before[c] - after[c])]);
  return markdownTable(['category', 'before', 'after', 'saved'], rows, 'lrrr', { layout: 'padded' });
}

/** report.md: totals, the per-strategy table and tokens per category before and after. */
export function renderMarkdownReport(report: ArchiveReport, options: RenderOptions = {}): string {
  return [
    '# Compaction report',
    '',
    `${report.transcripts} transcripts; ${report.tokensBefore} tokens before, ${report.tokensAfter} after: ` +
      `${report.tokensSaved} saved (${percent(report.tokensSaved, report.tokensBefore)}), tokenizer ${report.tokenizer}.`,
    '',
    '## Per strategy',
    '',
    ...renderStrategyTable(report, options),
    '',
    '## Per category',
    '',
    ...renderCategoryTable(report.byCategory),
    '',
  ].join('\n');
}
