import type { GroupFigures } from './group-figures.js';
import { pct } from './format.js';
import { markdownTable } from './markdown-table.js';

/** Groups side by side, one line each (Markdown table): `heading` as `By source format:`, `key` naming the first column. */
export function renderGroupFigures(heading: string, key: string, groups: Readonly<Record<string, GroupFigures>>): string[] {
  return [
    '',
    heading,
    '',
    ...markdownTable(
      [key, 'transcripts', 'tokens', 'model calls', 'tokens per call', 'tool calls', 'tool output share'],
      Object.entries(groups).map(([name, f]) => [
        tableLabel(name),
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

/**
 * A matrix of groups against names (policies, strategies): one cell per pair, `label` the group's column header or
 * row head. Groups as columns suits a few of them (source formats); as rows, any number (projects).
 */
export function renderGroupMatrix(
  groups: readonly { label: string; key: string }[],
  names: readonly string[],
  cell: (key: string, name: string) => string,
  layout: { corner: string; groupsAs: 'columns' | 'rows' },
): string[] {
  if (layout.groupsAs === 'columns') {
    return markdownTable(
      [layout.corner, ...groups.map((g) => tableLabel(g.label))],
      names.map((name) => [name, ...groups.map((g) => cell(g.key, name))]),
      `l${'r'.repeat(groups.length)}`,
    );
  }
  return markdownTable(
    [layout.corner, ...names],
    groups.map((g) => [tableLabel(g.label), ...names.map((name) => cell(g.key, name))]),
    `l${'r'.repeat(names.length)}`,
  );
}

/** A group's name in a table cell: a project's folder may hold a `|`. */
function tableLabel(name: string): string {
  return name.replaceAll('|', '\\|');
}
