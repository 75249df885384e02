import type { FormatFigures } from './by-format.js';

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** The agents side by side, one line per source format (Markdown table). */
export function renderByFormat(byFormat: Readonly<Record<string, FormatFigures>>): string[] {
  return [
    '',
    'By source format:',
    '',
    '| format | transcripts | tokens | model calls | tokens per call | tool calls | tool output share |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...Object.entries(byFormat).map(
      ([name, f]) => `| ${name} | ${f.transcripts} | ${f.tokens} | ${f.calls} | ${Math.round(f.tokensPerCall)} | ${f.toolCalls} | ${pct(f.toolOutputShare)} |`,
    ),
  ];
}
