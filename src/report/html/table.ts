import { NO_VALUE, int } from '../format.js';
import { escapeHtml } from './escape.js';

interface Column {
  label: string;
  /** Sorted as numbers, right-aligned. @default false */
  numeric?: boolean;
}

/**
 * A cell: plain text, a number shown with the text it sorts by, a text that links somewhere (`href`) or says something
 * on hover (`title`), or null for a figure with no value (NO_VALUE, sorted first).
 */
export type Cell = string | { text: string; sort: number } | { text: string; href?: string; title?: string } | null;

/** A number shown as `text` (by default, the count it rounds to) and sorted by its value. */
export const num = (value: number, text: string = int(value)): Cell => ({ text, sort: value });

function cell(c: Cell, numeric: boolean): string {
  if (c === null) return `<td${numeric ? ' class="n" data-sort="-1"' : ''}>${NO_VALUE}</td>`;
  if (typeof c === 'string') return `<td${numeric ? ' class="n"' : ''}>${escapeHtml(c)}</td>`;
  if ('sort' in c) return `<td class="n" data-sort="${c.sort}">${escapeHtml(c.text)}</td>`;
  const text = c.href === undefined ? escapeHtml(c.text) : `<a href="${escapeHtml(c.href)}">${escapeHtml(c.text)}</a>`;
  return `<td${c.title === undefined ? '' : ` title="${escapeHtml(c.title)}"`}>${text}</td>`;
}

/** A table that sorts by any column when its header is clicked (tablesort, started by the page's script). */
export function sortableTable(columns: readonly Column[], rows: readonly (readonly Cell[])[], caption?: string): string {
  const head = columns.map((c) => `<th${c.numeric ? ' class="n" data-sort-method="number"' : ''} role="columnheader">${escapeHtml(c.label)}</th>`).join('');
  const body = rows.map((r) => `<tr>${r.map((c, i) => cell(c, columns[i]?.numeric === true)).join('')}</tr>`).join('\n');
  return [
    '<div class="table-wrap"><table class="sortable">',
    caption === undefined ? '' : `<caption>${escapeHtml(caption)}</caption>`,
    `<thead><tr>${head}</tr></thead>`,
    `<tbody>\n${body}\n</tbody></table></div>`,
  ].join('');
}
