import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseContextManagerOptions } from '../../src/context/options.js';
import { AiSdkPruneSchema } from '../../src/replay/policies/runtime/ai-sdk-prune.js';
import { AnthropicContextManagementSchema } from '../../src/replay/policies/runtime/anthropic-context-editing.js';
import { LangChainClearToolUsesSchema } from '../../src/replay/policies/runtime/langchain-context-editing.js';
import { neededTools, tuneCandidates } from '../../src/tune/candidates.js';
import { ToolUsageTally } from '../../src/tune/tool-usage.js';
import type { TuneReport } from '../../src/tune/tune-run.js';
import { pct, ratio, usdShort } from '../../src/report/format.js';
import type { Message } from '../../src/model/message.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { runMain } from '../helpers/cli-in-process.js';
import { ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp-dir.js';

const tok = getTokenizer('heuristic');
const call = (id: string, name: string, args: object): Message => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
});
const result = (id: string, content: string): Message => ({ role: 'tool', tool_call_id: id, content });

describe('tune: tool usage', () => {
  it('counts, per tool, the calls whose file or command the session used again after the result, by hand', () => {
    const tally = new ToolUsageTally(tok);
    tally.add({
      id: 'hand',
      messages: [
        { role: 'user', content: 'fix the build' },
        call('r1', 'Read', { file_path: 'src/a.ts' }),
        result('r1', 'a'.repeat(400)),
        call('r2', 'Read', { file_path: 'src/b.ts' }),
        result('r2', 'b'.repeat(400)),
        call('b1', 'Bash', { command: 'npm test' }),
        result('b1', 'FAIL src/a.ts'),
        // a.ts edited again (needed); npm test run again (needed); b.ts never comes back.
        call('e1', 'Edit', { file_path: 'src/a.ts', old_string: 'x', new_string: 'y' }),
        result('e1', 'ok'),
        call('b2', 'Bash', { command: 'npm test' }),
        result('b2', 'ok'),
        call('s1', 'WebSearch', { query: 'vitest' }),
        result('s1', 'results'),
      ],
    });
    const usage = Object.fromEntries(tally.usage().map((u) => [u.tool, u]));
    expect(usage.Read).toMatchObject({ calls: 2, neededLater: 1, untargeted: 0, neededRate: 0.5 });
    expect(usage.Bash).toMatchObject({ calls: 2, neededLater: 1, neededRate: 0.5 });
    expect(usage.Edit).toMatchObject({ calls: 1, neededLater: 0 });
    expect(usage.WebSearch).toMatchObject({ calls: 1, untargeted: 1, neededRate: null });
    // Read's results are the largest: first.
    expect(tally.usage()[0].tool).toBe('Read');
    expect(neededTools(tally.usage())).toEqual([]);
  });

  it('builds the grid: four triggers, two keeps, the exclusions only when a tool is needed, inputs on and off, the break-even minimum, and tcompact', () => {
    const needed = [{ tool: 'Read', calls: 5, resultTokens: 1, share: 0.1, neededLater: 4, untargeted: 0, neededRate: 0.8 }];
    const grid = { cache: 'anthropic-5m', expectedCalls: 50 } as const;
    const withExclusions = tuneCandidates(100_000, needed, 'o200k_base', grid);
    expect(withExclusions).toHaveLength(4 * 2 * 2 * 2 + 4 * 2 + 7);
    expect(withExclusions.filter((c) => c.runtime === 'anthropic' && c.edit.exclude_tools.includes('Read'))).toHaveLength(16);
    expect(tuneCandidates(100_000, [], 'o200k_base', grid)).toHaveLength(4 * 2 * 2 + 4 * 2 + 7);
    expect(new Set(withExclusions.map((c) => c.name)).size).toBe(withExclusions.length);
    // At 50% of the window, a clear must free (1.25 - 0.1) / (0.1 x 50) of the 50,000-token prompt it has rewritten.
    const atLeast = withExclusions.find((c) => c.name === 'clear@0.5-keep3-at-least');
    expect(atLeast?.runtime === 'anthropic' && atLeast.edit.clear_at_least).toEqual({ type: 'input_tokens', value: Math.round((1.15 / 5) * 50_000) });
    const cacheAware = withExclusions.find((c) => c.name === 'tcompact-cache');
    expect(cacheAware?.runtime === 'tcompact' && cacheAware.options).toMatchObject({ cache: 'anthropic-5m', expectedCalls: 50 });
    const ownCache = withExclusions.find((c) => c.name === 'tcompact-own-cache');
    expect(ownCache?.runtime === 'tcompact' && ownCache.options).toEqual({ window: 100_000, expectedCalls: 50 });
    const payback = withExclusions.find((c) => c.name === 'tcompact-own-cache-payback2');
    expect(payback?.runtime === 'tcompact' && payback.options).toEqual({ window: 100_000, expectedCalls: 100 });
  });
});

describe('tcompact tune (bundled Claude Code sessions)', () => {
  it('replays the candidates, recommends the cheapest above the floor, and writes exports each runtime loads, replayed to the same figures', async () => {
    const dir = tempDir('tune');
    const inputs = ['subagent.jsonl', 'tool_heavy.jsonl'].map((f) => join(ROOT, 'datasets/bundled/claude-code', f));
    const out = join(dir, 'out');
    const run = await runMain(['tune', ...inputs, '--out', out, '--window', '20000', '--tokenizer', 'heuristic', '--recall-floor', '0.9']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'tune.json'), 'utf8')) as TuneReport;
    expect(report.transcripts).toBe(2);
    expect(Object.keys(report.baselines)).toEqual(['none', 'default', 'optimal', 'optimalResults']);
    expect(report.baselines.optimal.cost.withCache).toBeLessThanOrEqual(report.baselines.none.cost.withCache);
    // The results-only floor plans over fewer edits: no cheaper than optimal, no dearer than none.
    const { optimal, optimalResults } = report.baselines;
    expect(optimalResults.cost.withCache).toBeGreaterThanOrEqual(optimal.cost.withCache);
    expect(optimalResults.cost.withCache).toBeLessThanOrEqual(report.baselines.none.cost.withCache);
    const md = readFileSync(join(out, 'tune.md'), 'utf8');
    expect(md).toContain(`\`optimal-results\` costs ${usdShort(optimalResults.cost.withCache)}`);
    expect(md).toContain(`the recommendation costs ${ratio(report.recommended.cost.withCache / optimalResults.cost.withCache)} that.`);
    // The frontier: optimal at floor 0, then each floor's schedule found, meeting it, never below its bound.
    expect(report.frontier.map((f) => f.floor)).toEqual([0, 0.8, 0.9, 0.95, 0.99]);
    expect(report.frontier[0].found.cost).toBe(optimal.cost.withCache);
    for (const f of report.frontier.slice(1)) {
      expect(f.found.recall).toBeGreaterThanOrEqual(f.floor);
      expect(f.bound).toBeLessThanOrEqual(f.found.cost + 1e-9);
      expect(f.bound).toBeGreaterThanOrEqual(optimal.cost.withCache - 1e-9);
      expect(f.gap).toBeCloseTo(f.found.cost / f.bound, 12);
      // Each transcript held to the floor asks more than the archive: its bound lies between the two.
      expect(f.eachBound).toBeGreaterThanOrEqual(f.bound);
      expect(f.eachBound).toBeLessThanOrEqual(f.found.cost + 1e-9);
    }
    const none = report.baselines.none;
    const top = report.frontier[report.frontier.length - 1];
    // none never edits: it keeps everything in every transcript, so both bounds at the top floor apply.
    expect(none.lowestRecall).toBe(1);
    expect(none.againstBound).toEqual({
      floor: 0.99,
      bound: top.bound,
      times: none.cost.withCache / top.bound,
      each: { floor: 0.99, bound: top.eachBound, times: none.cost.withCache / top.eachBound },
    });
    expect(md).toContain('## The recall frontier');
    expect(md).toContain(`| ${pct(0.95)} | ${usdShort(report.frontier[3].found.cost)} |`);
    expect(readFileSync(join(out, 'tune.html'), 'utf8')).toContain('vs bound at its recall');
    for (const r of [report.baselines.none, report.baselines.default, ...report.candidates, report.recommended]) {
      expect(r).toMatchObject({
        policy: expect.any(Object),
        cost: { withoutCache: expect.any(Number), withCache: expect.any(Number) },
        billedInput: expect.any(Number),
      });
      expect(r.hindsightRecall).toBeGreaterThanOrEqual(0);
      expect(r.hindsightRecall).toBeLessThanOrEqual(1);
    }
    // Some candidate cleared something at this window, and was scored where it did.
    expect(report.candidates.some((c) => c.hindsight.points > 0 && c.billedInput < report.baselines.none.billedInput)).toBe(true);
    // The recommendation is the cheapest with caching among those that keep the floor.
    const eligible = report.candidates.filter((c) => c.hindsightRecall >= 0.9);
    expect(report.recommended.meetsFloor).toBe(eligible.length > 0);
    expect(report.recommended.cost.withCache).toBe(Math.min(...eligible.map((c) => c.cost.withCache)));
    expect(report.candidates.some((c) => c.frontier)).toBe(true);

    // Each export parses as its runtime's settings.
    const read = (f: string) => JSON.parse(readFileSync(join(out, 'exports', f), 'utf8')) as unknown;
    AnthropicContextManagementSchema.parse(read('anthropic.json'));
    AiSdkPruneSchema.parse(read('ai-sdk.json'));
    parseContextManagerOptions(read('tcompact.json'));
    LangChainClearToolUsesSchema.parse(read('langchain.json'));
    for (const name of ['tune.md', 'tune.html']) expect(existsSync(join(out, name))).toBe(true);
    // Each runtime's export names its adapter beside it; one whose own editing costs more than none says so, with the figure.
    for (const e of report.exports.filter((x) => x.runtime !== 'tcompact')) {
      expect(e.adapter, e.runtime).toContain('tcompact.json');
      expect(md).toContain(`- ${e.runtime}: ${e.adapter}`);
      const costlier = e.cost.withCache > report.baselines.none.cost.withCache;
      const figure = `costs ${(e.cost.withCache / report.baselines.none.cost.withCache).toFixed(2)}× \`none\` with caching on this archive (${usdShort(e.cost.withCache)} against`;
      expect(e.note?.includes(figure) ?? false, e.runtime).toBe(costlier);
    }

    // simulate replays each runtime's export, with that runtime's semantics, to the figures tune reports for it.
    const runtimes = ['anthropic', 'langchain', 'ai-sdk'];
    const policies = runtimes.flatMap((r) => ['--policy', `${r}:${join(out, 'exports', `${r}.json`)}`]);
    const sim = await runMain(['simulate', ...inputs, '--out', join(dir, 'sim'), '--window', '20000', '--tokenizer', 'heuristic', ...policies]);
    expect(sim.code).toBe(0);
    const simulated = JSON.parse(readFileSync(join(dir, 'sim', 'simulate.json'), 'utf8')) as {
      policies: { name: string; cost: { withCache: number }; billedInput: number }[];
    };
    for (const runtime of runtimes) {
      const exported = report.exports.find((e) => e.runtime === runtime)!;
      const replayed = simulated.policies.find((p) => p.name.startsWith(`${runtime}:`))!;
      expect(replayed.cost.withCache, runtime).toBeCloseTo(exported.cost.withCache, 10);
      expect(replayed.billedInput, runtime).toBe(exported.billedInput);
    }
  });

  it('refuses a recall floor outside 0..1 and a missing --out, with exit 2', async () => {
    const input = join(ROOT, 'datasets/bundled/claude-code/short.jsonl');
    const floor = await runMain(['tune', input, '--out', tempDir('tune'), '--recall-floor', '1.5']);
    expect(floor.code).toBe(2);
    expect(floor.stderr).toContain('--recall-floor must be between 0 and 1, got "1.5"');
    const noOut = await runMain(['tune', input]);
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toContain('tune: --out DIR is required');
  });
});
