import type { FormatFigures } from './by-format.js';
import { pct } from './format.js';
import { markdownTable } from './markdown-table.js';

/** The agents side by side, one line per source format (Markdown table). */
export function renderByFormat(byFormat: Readonly<Record<string, FormatFigures>>): string[] {
  return [
    '',
    'By source format:',
    '',
    ...markdownTable(
      ['format', 'transcripts', 'tokens', 'model calls', 'tokens per call', 'tool calls', 'tool output share'],
      Object.entries(byFormat).map(([name, f]) => [
        name,
        String(f.transcripts),
        String(f.tokens),
        String(f.calls),
        String(Math.round(f.tokensPerCall)),
        String(f.toolCalls),
        pct(f.toolOutputShare),
      ]),
      'lrrrrrr',
      { layout: 'tight' },
    ),
  ];
}
