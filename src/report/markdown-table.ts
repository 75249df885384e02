/**
 * How a Markdown table is laid out. `plain`: cells as they are, the rule `| --- | ---: |` (eval.md, simulate.md);
 * `tight`: the same cells, the rule `|---|---:|` (tune.md, the formats `stats` prints); `padded`: every column as wide
 * as its widest cell, so the table also reads well in a terminal (report.md, the table `compact` prints).
 */
export type TableLayout = 'plain' | 'tight' | 'padded';

export interface MarkdownTableOptions {
  /** @default 'plain' */
  layout?: TableLayout;
}

/** Narrowest column of a padded table: its rule keeps the three dashes Markdown asks for. */
const MIN_WIDTH = 3;

/**
 * A GitHub-flavoured Markdown table, one line per element; `align` has a letter per column, `l` (left) or `r` (right).
 * Cells are written as given: a cell that may hold `|` or a line break is escaped by its caller.
 */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[], align: string, options: MarkdownTableOptions = {}): string[] {
  const right = (c: number) => align[c] === 'r';
  const layout = options.layout ?? 'plain';
  if (layout !== 'padded') {
    const rule =
      layout === 'plain'
        ? `| ${header.map((_, c) => (right(c) ? '---:' : '---')).join(' | ')} |`
        : `|${header.map((_, c) => (right(c) ? '---:' : '---')).join('|')}|`;
    const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
    return [line(header), rule, ...rows.map(line)];
  }
  const widths = header.map((h, c) => Math.max(h.length, MIN_WIDTH, ...rows.map((r) => r[c].length)));
  const cell = (text: string, c: number) => (right(c) ? text.padStart(widths[c]) : text.padEnd(widths[c]));
  const line = (cells: readonly string[]) => `| ${cells.map(cell).join(' | ')} |`;
  const rule = `|${widths.map((w, c) => (right(c) ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [line(header), rule, ...rows.map(line)];
}
