import { CATEGORIES } from '../../tokens/breakdown.js';
import type { WindowStatus } from '../../tokens/window.js';
import type { GroupFigures } from '../group-figures.js';
import { int, pct } from '../format.js';
import { WINDOW_STATUSES } from '../transcript-spread.js';
import { barChart } from './chart.js';
import type { Page, Section } from './page.js';
import { type Cell, num, sortableTable } from './table.js';

/** What `stats --json` prints: the fields the page shows. */
export interface StatsPageInput {
  inputs: readonly string[];
  tokenizer: string;
  window: number;
  transcripts: readonly { id: string; file: string; line: number; messages: number; tokens: number; windowShare: number; status: WindowStatus }[];
  total: { transcripts: number; tokens: number; byCategory: Readonly<Record<string, number>> };
  /** Present when the inputs mix source formats: the agents side by side. */
  byFormat?: Readonly<Record<string, ShownFigures>>;
  /** Present when the inputs hold two projects or more: the projects side by side. */
  byProject?: Readonly<Record<string, ShownFigures>>;
}

type ShownFigures = Pick<GroupFigures, 'transcripts' | 'tokens' | 'calls' | 'tokensPerCall' | 'toolCalls' | 'toolOutputShare'>;

/** One grouping of the transcripts (by source format, by project): tokens per call charted, every figure in a table. */
function groupSection(groups: Readonly<Record<string, ShownFigures>>, shown: { id: string; title: string; key: string; intro: string }): Section {
  return {
    title: shown.title,
    intro: shown.intro,
    charts: [
      barChart(shown.id, `Tokens per model call, ${shown.title.toLowerCase()}`, Object.keys(groups), [
        { label: 'tokens per call', data: Object.values(groups).map((f) => Math.round(f.tokensPerCall)) },
      ]),
    ],
    html: sortableTable(
      [
        { label: shown.key },
        { label: 'transcripts', numeric: true },
        { label: 'tokens', numeric: true },
        { label: 'model calls', numeric: true },
        { label: 'tokens per call', numeric: true },
        { label: 'tool calls', numeric: true },
        { label: 'tool output share', numeric: true },
      ],
      Object.entries(groups).map(([name, f]): Cell[] => [
        name,
        num(f.transcripts),
        num(f.tokens),
        num(f.calls),
        num(Math.round(f.tokensPerCall)),
        num(f.toolCalls),
        num(f.toolOutputShare, pct(f.toolOutputShare)),
      ]),
    ),
  };
}

/** Transcripts listed, the largest first. */
const LISTED = 50;

/** The page of `stats --html`: the archive's tokens by category and its transcripts by context-window tier. */
export function statsPage(s: StatsPageInput): Page {
  const categories = CATEGORIES.filter((c) => (s.total.byCategory[c] ?? 0) !== 0);
  const tiers: Record<string, number> = {};
  for (const t of s.transcripts) tiers[t.status] = (tiers[t.status] ?? 0) + 1;
  const largest = [...s.transcripts].sort((a, b) => b.tokens - a.tokens).slice(0, LISTED);
  const total = s.total.tokens;
  return {
    title: 'tcompact stats',
    subtitle: `Inputs: ${s.inputs.join(', ')} · tokenizer ${s.tokenizer} · window ${int(s.window)} tokens`,
    headline: [
      { key: 'total.transcripts', label: 'transcripts', value: s.total.transcripts, text: int(s.total.transcripts) },
      { key: 'total.tokens', label: `tokens (${s.tokenizer})`, value: total, text: int(total) },
    ],
    sections: [
      {
        title: 'Tokens per category',
        charts: [
          barChart('categories', 'Tokens per category', categories, [{ label: 'tokens', data: categories.map((c) => s.total.byCategory[c]) }], {
            horizontal: true,
          }),
          barChart(
            'tiers',
            'Transcripts by context-window tier',
            WINDOW_STATUSES.map((t) => t.replaceAll('_', ' ')),
            [{ label: 'transcripts', data: WINDOW_STATUSES.map((t) => tiers[t] ?? 0) }],
            { value: 'number', note: 'ok <80% of the window, warning 80–90%, over the compaction threshold 90–98%, over the hard limit ≥98%.' },
          ),
        ],
        html: sortableTable(
          [{ label: 'category' }, { label: 'tokens', numeric: true }, { label: 'share', numeric: true }],
          categories.map((c): Cell[] => [
            c,
            num(s.total.byCategory[c]),
            num(total > 0 ? s.total.byCategory[c] / total : 0, pct(total > 0 ? s.total.byCategory[c] / total : 0)),
          ]),
        ),
      },
      ...(s.byFormat
        ? [
            groupSection(s.byFormat, {
              id: 'formats',
              title: 'By source format',
              key: 'format',
              intro: 'The agents side by side: what each reply of their sessions carried, and how much of it was tool output.',
            }),
          ]
        : []),
      ...(s.byProject
        ? [
            groupSection(s.byProject, {
              id: 'projects',
              title: 'By project',
              key: 'project',
              intro:
                'The projects side by side (the folder each session worked in, as its agent recorded it): what each reply carried, and how much of it was tool output.',
            }),
          ]
        : []),
      {
        title: 'Largest transcripts',
        html: sortableTable(
          [
            { label: 'transcript' },
            { label: 'source' },
            { label: 'messages', numeric: true },
            { label: 'tokens', numeric: true },
            { label: 'of window', numeric: true },
            { label: 'tier' },
          ],
          largest.map((t): Cell[] => [t.id, `${t.file}:${t.line}`, num(t.messages), num(t.tokens), num(t.windowShare, pct(t.windowShare)), t.status]),
          `The ${largest.length} largest of ${int(s.transcripts.length)} transcripts`,
        ),
      },
    ],
  };
}
