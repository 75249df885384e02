import { beforeAll, describe, expect, it } from 'vitest';
import type { Transcript } from '../../src/model/transcript.js';
import { type RunFigures, addRun, emptyArchiveReport, mergeArchiveReports, withoutTimings } from '../../src/report/archive-report.js';
import { buildSteps } from '../../src/strategies/build-steps.js';
import { parseCompactConfig } from '../../src/strategies/compact-config.js';
import { runSteps } from '../../src/strategies/runner.js';
import type { StepReport } from '../../src/strategies/types.js';
import { emptyBreakdown, totalOf } from '../../src/tokens/breakdown.js';
import { bundledTranscripts } from '../helpers/bundled-transcripts.js';
import { makeContext } from '../helpers/transcript-kit.js';

function step(strategy: string, before: number, after: number, extra: Partial<StepReport> = {}): StepReport {
  return { strategy, messagesChanged: 1, messagesRemoved: 0, tokensBefore: before, tokensAfter: after, tokensSaved: before - after, ms: 2, ...extra };
}

function figures(steps: StepReport[]): RunFigures {
  const before = { ...emptyBreakdown(), toolResults: steps[0].tokensBefore };
  const after = { ...emptyBreakdown(), toolResults: steps.at(-1)!.tokensAfter };
  return { steps, tokensBefore: steps[0].tokensBefore, tokensAfter: steps.at(-1)!.tokensAfter, before, after };
}

describe('archive report', () => {
  it('sums steps by strategy name, in pipeline order, with details and skipped steps', () => {
    const report = emptyArchiveReport('o200k_base');
    addRun(report, figures([step('sanitize', 100, 100), step('mask-observations', 100, 60, { details: { resultsMasked: 2 } }), step('sanitize', 60, 60)]));
    addRun(report, figures([step('sanitize', 50, 50), step('mask-observations', 50, 50, { skipped: true, messagesChanged: 0 }), step('sanitize', 50, 50)]));
    expect(withoutTimings(report)).toEqual({
      tokenizer: 'o200k_base',
      transcripts: 2,
      tokensBefore: 150,
      tokensAfter: 110,
      tokensSaved: 40,
      strategies: [
        { name: 'sanitize', runs: 4, skipped: 0, tokensSaved: 0, messagesChanged: 4, messagesRemoved: 0, details: {} },
        { name: 'mask-observations', runs: 1, skipped: 1, tokensSaved: 40, messagesChanged: 1, messagesRemoved: 0, details: { resultsMasked: 2 } },
      ],
      byCategory: { before: { ...emptyBreakdown(), toolResults: 150 }, after: { ...emptyBreakdown(), toolResults: 110 } },
    });
    expect(report.strategies.map((s) => s.ms)).toEqual([8, 4]);
  });

  it('is all zeros, never NaN, for an empty archive', () => {
    const report = emptyArchiveReport('cl100k_base');
    expect(report).toMatchObject({ transcripts: 0, tokensBefore: 0, tokensAfter: 0, tokensSaved: 0, strategies: [] });
  });

  describe('on the bundled real transcripts', () => {
    let transcripts: Transcript[] = [];
    beforeAll(async () => {
      transcripts = await bundledTranscripts();
    });

    it('per-strategy savings add up exactly to before - after, and merging halves equals adding all', () => {
      const steps = buildSteps(parseCompactConfig({ strategies: ['strip-reasoning', 'mask-observations', 'strip-tool-results', 'prune-tools'] }));
      const all = emptyArchiveReport('o200k_base');
      const halves = [emptyArchiveReport('o200k_base'), emptyArchiveReport('o200k_base')];
      let before = 0;
      let after = 0;
      transcripts.forEach((t, i) => {
        const run = runSteps(t, steps, makeContext());
        before += run.tokensBefore;
        after += run.tokensAfter;
        addRun(all, run);
        addRun(halves[i % 2], run);
      });
      expect(all.transcripts).toBe(transcripts.length);
      expect(all.tokensBefore).toBe(before);
      expect(all.tokensAfter).toBe(after);
      expect(all.tokensSaved).toBeGreaterThan(0);
      expect(all.strategies.reduce((n, s) => n + s.tokensSaved, 0)).toBe(before - after);
      expect(all.strategies.map((s) => s.name)).toEqual(['sanitize', 'strip-reasoning', 'mask-observations', 'strip-tool-results', 'prune-tools']);
      expect(totalOf(all.byCategory.before)).toBe(before);
      expect(totalOf(all.byCategory.after)).toBe(after);
      expect(withoutTimings(mergeArchiveReports(halves[0], halves[1]))).toEqual(withoutTimings(all));
    });
  });
});
