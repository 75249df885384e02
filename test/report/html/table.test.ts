import { describe, expect, it } from 'vitest';
import { NO_VALUE } from '../../../src/report/format.js';
import { num, sortableTable } from '../../../src/report/html/table.js';

describe('sortableTable', () => {
  it('shows a cell with no value as the reports no-value mark, sorted first', () => {
    const html = sortableTable([{ label: 'share', numeric: true }], [[null]]);
    expect(html).toContain(`<td class="n" data-sort="-1">${NO_VALUE}</td>`);
  });

  it('shows a number as the count it rounds to, sorted by its value', () => {
    expect(sortableTable([{ label: 'tokens', numeric: true }], [[num(1234.6)]])).toContain('<td class="n" data-sort="1234.6">1,235</td>');
  });
});
