import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLED } from '../helpers/paths.js';
import { runMain } from '../helpers/cli-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';
import type { PricedUsage } from '../../src/replay/transcript-replay.js';

// Five replies of Claude Opus 4.6, each with its recorded usage.
const SHORT = join(BUNDLED, 'claude-code', 'short.jsonl');

describe('simulate --prices FILE', () => {
  it("bills a model the file lists at the file's prices, and says so in simulate.json and simulate.md", async () => {
    const dir = tempDir('prices');
    const file = join(dir, 'prices.json');
    writeFileSync(file, JSON.stringify({ 'claude-opus-4-6': { input: 4, output: 20, cacheRead: 0.2 } }));
    const run = await runMain(['simulate', SHORT, '--policy', 'none', '--prices', file, '--out', join(dir, 'out')]);
    expect([run.code, run.stderr]).toEqual([0, '']);
    const json = JSON.parse(readFileSync(join(dir, 'out', 'simulate.json'), 'utf8'));
    expect(json.modelPrices).toEqual({
      'claude-opus-4-6': {
        listed: { name: 'claude-opus-4-6', from: 'file' },
        rates: { input: 4, output: 20, cacheWrite5m: 5, cacheWrite1h: 8, cacheRead: 0.2 },
      },
    });
    const u = json.recorded.usage.byModel['claude-opus-4-6'] as PricedUsage['byModel'][string];
    const byHand = (u.uncachedInput * 4 + (u.cacheCreation - u.cacheCreation1h) * 5 + u.cacheCreation1h * 8 + u.cacheRead * 0.2 + u.output * 20) / 1e6;
    expect(u.cost.withCache).toBeGreaterThan(0);
    expect(u.cost.withCache).toBeCloseTo(byHand, 12);
    expect(readFileSync(join(dir, 'out', 'simulate.md'), 'utf8')).toContain('| claude-opus-4-6 | file (claude-opus-4-6) | $4 | $5 | $8 | $0.2 | $20 |');
  });

  it('refuses an unreadable file, bad JSON and a bad schema with exact E_CONFIG messages', async () => {
    const dir = tempDir('prices-bad');
    const missing = join(dir, 'missing.json');
    const badJson = join(dir, 'bad.json');
    const badSchema = join(dir, 'schema.json');
    writeFileSync(badJson, '{"claude-opus-4-6": ');
    writeFileSync(badSchema, JSON.stringify({ 'claude-opus-4-6': { input: '4', output: 20 }, 'my-model': { input: 1, output: 2, cached: 0.1 } }));
    const stderrOf = async (file: string) => {
      const run = await runMain(['simulate', SHORT, '--prices', file, '--out', join(dir, 'out')]);
      return [run.code, run.stderr.trim()];
    };
    expect(await stderrOf(missing)).toEqual([2, `tcompact simulate: E_CONFIG: ${missing}: cannot read the price file (ENOENT)`]);
    expect(await stderrOf(badJson)).toEqual([2, `tcompact simulate: E_CONFIG: ${badJson}: not valid JSON: Unexpected end of JSON input`]);
    expect(await stderrOf(badSchema)).toEqual([
      2,
      `tcompact simulate: E_CONFIG: ${badSchema}: claude-opus-4-6.input: Invalid input: expected number, received string; my-model: Unrecognized key: "cached"`,
    ]);
  });

  it('takes the same file on tune', async () => {
    const dir = tempDir('prices-tune');
    const run = await runMain(['tune', SHORT, '--prices', join(dir, 'missing.json'), '--out', join(dir, 'out')]);
    expect([run.code, run.stderr.trim()]).toEqual([2, `tcompact tune: E_CONFIG: ${join(dir, 'missing.json')}: cannot read the price file (ENOENT)`]);
  });
});
