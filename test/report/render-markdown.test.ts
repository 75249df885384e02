import { describe, expect, it } from 'vitest';
import { type ArchiveReport, addRun, emptyArchiveReport } from '../../src/report/archive-report.js';
import { renderMarkdownReport, renderStrategyTable } from '../../src/report/render-markdown.js';
import { emptyBreakdown } from '../../src/tokens/breakdown.js';

function report(): ArchiveReport {
  const r = emptyArchiveReport('o200k_base');
  return addRun(r, {
    tokensBefore: 1000,
    tokensAfter: 700,
    before: { ...emptyBreakdown(), user: 100, toolResults: 900 },
    after: { ...emptyBreakdown(), user: 100, toolResults: 600 },
    steps: [
      {
        strategy: 'sanitize',
        messagesChanged: 0,
        messagesRemoved: 0,
        tokensBefore: 1000,
        tokensAfter: 1000,
        tokensSaved: 0,
        ms: 0.4,
        details: { orphanResultDropped: 0 },
      },
      {
        strategy: 'mask-observations',
        messagesChanged: 3,
        messagesRemoved: 0,
        tokensBefore: 1000,
        tokensAfter: 700,
        tokensSaved: 300,
        ms: 12.6,
        details: { resultsMasked: 3, bytesMasked: 4000 },
      },
    ],
  });
}

describe('render-markdown', () => {
  it('renders the per-strategy table with a total row, padded', () => {
    expect(renderStrategyTable(report())).toEqual([
      '| strategy          | tokens saved | of before | changed | removed |  ms | details                           |',
      '|-------------------|-------------:|----------:|--------:|--------:|----:|-----------------------------------|',
      '| sanitize          |            0 |      0.0% |       0 |       0 |   0 |                                   |',
      '| mask-observations |          300 |     30.0% |       3 |       0 |  13 | resultsMasked 3, bytesMasked 4000 |',
      '| total             |          300 |     30.0% |       3 |       0 |  13 |                                   |',
    ]);
  });

  it('renders report.md without timings when asked', () => {
    expect(renderMarkdownReport(report(), { timings: false })).toBe(
      [
        '# Compaction report',
        '',
        '1 transcripts; 1000 tokens before, 700 after: 300 saved (30.0%), tokenizer o200k_base.',
        '',
        '## Per strategy',
        '',
        '| strategy          | tokens saved | of before | changed | removed | details                           |',
        '|-------------------|-------------:|----------:|--------:|--------:|-----------------------------------|',
        '| sanitize          |            0 |      0.0% |       0 |       0 |                                   |',
        '| mask-observations |          300 |     30.0% |       3 |       0 | resultsMasked 3, bytesMasked 4000 |',
        '| total             |          300 |     30.0% |       3 |       0 |                                   |',
        '',
        '## Per category',
        '',
        '| category    | before | after | saved |',
        '|-------------|-------:|------:|------:|',
        '| user        |    100 |   100 |     0 |',
        '| toolResults |    900 |   600 |   300 |',
        '',
      ].join('\n'),
    );
  });
});
