import { describe, expect, it } from 'vitest';
import { markdownTable } from '../../src/report/markdown-table.js';

const HEADER = ['name', 'tokens'];
const ROWS = [
  ['a', '12'],
  ['longer name', '3'],
];

describe('markdownTable', () => {
  it('writes cells as given under a spaced rule by default', () => {
    expect(markdownTable(HEADER, ROWS, 'lr')).toEqual(['| name | tokens |', '| --- | ---: |', '| a | 12 |', '| longer name | 3 |']);
  });

  it('writes the rule without spaces in the tight layout', () => {
    expect(markdownTable(HEADER, ROWS, 'lr', { layout: 'tight' })).toEqual(['| name | tokens |', '|---|---:|', '| a | 12 |', '| longer name | 3 |']);
  });

  it('pads every column to its widest cell in the padded layout, numbers to the right', () => {
    expect(markdownTable(HEADER, ROWS, 'lr', { layout: 'padded' })).toEqual([
      '| name        | tokens |',
      '|-------------|-------:|',
      '| a           |     12 |',
      '| longer name |      3 |',
    ]);
  });

  it('keeps a padded column at least three characters wide', () => {
    expect(markdownTable(['', 'n'], [['x', '1']], 'lr', { layout: 'padded' })).toEqual(['|     |   n |', '|-----|----:|', '| x   |   1 |']);
  });
});
