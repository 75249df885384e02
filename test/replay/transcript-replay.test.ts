import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED } from '../helpers/paths.js';
import { runMain } from '../helpers/cli-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';
import type { ModelRun } from '../../src/replay/policy-run.js';
import type { PricedUsage } from '../../src/replay/transcript-replay.js';

// A real Claude Code session answered by two models: Haiku 4.5 (dated id) before its compaction, Opus 4.6 after it.
const SESSION = join(BUNDLED, 'claude-code', 'ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl');
const OPUS = 'claude-opus-4-6';
const HAIKU = 'claude-haiku-4-5-20251001';
// The built-in table's list prices per million tokens, on Anthropic's page: input, 5-minute write, read, output.
const RATES = {
  [OPUS]: { input: 5, write: 6.25, read: 0.5, output: 25 },
  [HAIKU]: { input: 1, write: 1.25, read: 0.1, output: 5 },
};

describe('a transcript answered by two models', () => {
  let json: {
    policies: { name: string; cost: { withCache: number }; byModel: Record<string, ModelRun> }[];
    recorded: { usage: PricedUsage };
  };
  let md: string;
  let page: string;
  beforeAll(async () => {
    const out = tempDir('two-models');
    const run = await runMain(['simulate', SESSION, '--policy', 'none', '--policy', 'default', '--out', out]);
    expect([run.code, run.stderr]).toEqual([0, '']);
    json = JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8'));
    md = readFileSync(join(out, 'simulate.md'), 'utf8');
    page = readFileSync(join(out, 'simulate.html'), 'utf8');
  });

  it("bills each model's replayed calls at its own prices, and the models' costs add up to the total", () => {
    for (const policy of json.policies) {
      expect(Object.keys(policy.byModel)).toEqual([OPUS, HAIKU]);
      let sum = 0;
      for (const [model, r] of Object.entries(policy.byModel)) {
        const p = RATES[model as keyof typeof RATES];
        const plain = r.billedInput - r.cachedInput - r.cacheWrites;
        expect(r.cost.withCache).toBeCloseTo((plain * p.input + r.cacheWrites * p.write + r.cachedInput * p.read + r.outputTokens * p.output) / 1e6, 12);
        expect(r.cost.withoutCache).toBeCloseTo((r.billedInput * p.input + r.outputTokens * p.output) / 1e6, 12);
        sum += r.cost.withCache;
      }
      expect(sum).toBeCloseTo(policy.cost.withCache, 12);
    }
    expect([json.policies[0].byModel[OPUS].calls, json.policies[0].byModel[HAIKU].calls]).toEqual([84, 133]);
  });

  it("bills each model's recorded calls at its own prices: $5.3162 in all, as ccusage computes for the session", () => {
    const { usage } = json.recorded;
    let sum = 0;
    for (const [model, u] of Object.entries(usage.byModel)) {
      const p = RATES[model as keyof typeof RATES];
      // No write of this session was made with the 1-hour TTL.
      expect(u.cacheCreation1h).toBe(0);
      expect(u.cost.withCache).toBeCloseTo((u.uncachedInput * p.input + u.cacheCreation * p.write + u.cacheRead * p.read + u.output * p.output) / 1e6, 12);
      sum += u.cost.withCache;
    }
    expect(sum).toBeCloseTo(usage.cost.withCache, 12);
    expect(usage.byModel[OPUS].cost.withCache).toBeCloseTo(3.8960935, 7);
    expect(usage.byModel[HAIKU].cost.withCache).toBeCloseTo(1.42012235, 7);
    expect(usage.cost.withCache).toBeCloseTo(5.31621585, 7);
  });

  it('reports the cost by model and the rates with their source in simulate.md and on the page', () => {
    const none = json.policies[0].byModel;
    expect(md).toContain('## By model');
    expect(md).toContain(`| none | $${none[OPUS].cost.withCache.toFixed(2)} (84) | $${none[HAIKU].cost.withCache.toFixed(2)} (133) |`);
    expect(md).toContain('| recorded | $3.90 (84) | $1.42 (133) | – | $5.32 |');
    expect(md).toContain(`| ${HAIKU} | table (claude-haiku-4-5) | $1 | $1.25 | $2 | $0.1 | $5 |`);
    expect(page).toContain('<h2>By model</h2>');
    expect(page).toContain('$1.4201 (133 calls)');
  });
});
