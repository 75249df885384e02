import { describe, expect, it } from 'vitest';
import { Evaluation } from '../../src/retention/eval-run.js';
import { DEFAULT_PRICES } from '../../src/replay/billing/prices.js';
import { renderEvaluation, rowFigures } from '../../src/retention/render-eval.js';
import { renderSimulation } from '../../src/replay/render-simulate.js';
import { Simulation } from '../../src/replay/simulation.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';

const tok = getTokenizer('o200k_base');
const empty = { id: 'empty', messages: [] };

describe('a transcript with no messages', () => {
  it('gives eval rows with no probes, no savings and no NaN', async () => {
    const e = new Evaluation({ strategies: ['mask-observations', 'checkpoint'], tokenizer: tok });
    expect(await e.add(empty, { file: 'f', line: 1 })).toEqual([]);
    const r = e.report();
    for (const row of r.rows) {
      expect(row.tokensBefore).toBe(0);
      expect(rowFigures(row, r.rows[0])).toEqual({
        compression: null,
        saved: 0,
        recall: { artifact: null, command: null, error: null, intent: null, task: null, overall: null },
        failedCommands: null,
        unresolvedErrors: null,
        lastRequest: null,
        kindsMean: null,
        lossPerSaving: null,
      });
    }
    expect(renderEvaluation(r)).not.toContain('NaN');
  });

  it('gives a replay with no calls, no reduction and no NaN', async () => {
    const s = new Simulation({ policies: ['mask-10', 'seed-80-first3-last10'], window: 1000, tokenizer: tok, prices: DEFAULT_PRICES });
    await s.add(empty, { file: 'f', line: 1 });
    const r = s.report();
    expect(r.policies.map((p) => [p.name, p.calls, p.billedInput, p.reductionVsNone])).toEqual([
      ['none', 0, 0, 0],
      ['optimal', 0, 0, 0],
      ['mask-10', 0, 0, 0],
      ['seed-80-first3-last10', 0, 0, 0],
    ]);
    expect(renderSimulation(r)).not.toContain('NaN');
  });
});
