import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED, CLI } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp-dir.js';
import { runMain } from '../helpers/cli-in-process.js';

const exec = promisify(execFile);

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [CLI, ...args], { maxBuffer: 1 << 26 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const SESSION = join(BUNDLED, 'claude-code', 'ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl');
const TAU = join(BUNDLED, 'tau-bench', 'gpt-4o-airline.json');

describe('tcompact eval (built CLI)', () => {
  let out: string;
  let run: { code: number; stdout: string; stderr: string };
  beforeAll(async () => {
    out = tempDir('eval');
    run = await cli(['eval', SESSION, TAU, '--out', out, '--strategy', 'auto', '--strategy', 'mask-observations', '--strategy', 'checkpoint']);
  });

  it('writes eval.md and eval.json with one row per strategy, on the bundled session and tau-bench', () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const md = readFileSync(join(out, 'eval.md'), 'utf8');
    expect(md).toContain('| strategy | tokens before | tokens after | compression | saved | artifacts | commands |');
    for (const name of ['original', 'auto', 'mask-observations', 'checkpoint', 'claude-code summary']) expect(md).toContain(`| ${name} |`);
    const json = JSON.parse(readFileSync(join(out, 'eval.json'), 'utf8'));
    expect(json.transcripts).toBe(201);
    expect(json.rows.map((r: { name: string }) => r.name)).toEqual(['original', 'auto', 'mask-observations', 'checkpoint']);
    expect(json.rows[0].recall.overall).toBe(1);
    expect(json.reference.spans).toBe(1);
    const lost = readFileSync(join(out, 'lost.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const checkpointLost = json.rows[3].score.overall.probes - json.rows[3].score.overall.retained;
    expect(lost.filter((l) => l.strategy === 'checkpoint' && l.compaction === undefined)).toHaveLength(checkpointLost);
  });

  it('gives byte-identical files on a second run', async () => {
    const a = tempDir('eval-a');
    const b = tempDir('eval-b');
    const input = join(BUNDLED, 'claude-code', 'tool_heavy.jsonl');
    for (const dir of [a, b]) expect((await runMain(['eval', input, '--out', dir, '--strategy', 'checkpoint'])).code).toBe(0);
    for (const f of ['eval.json', 'eval.md', 'lost.jsonl']) expect(readFileSync(join(a, f), 'utf8')).toBe(readFileSync(join(b, f), 'utf8'));
  });

  it('refuses a missing --out and an unknown strategy with exit code 2', async () => {
    const noOut = await runMain(['eval', SESSION]);
    expect([noOut.code, noOut.stderr.trim()]).toEqual([2, 'tcompact eval: E_USAGE: eval: --out DIR is required']);
    const unknown = await runMain(['eval', SESSION, '--out', out, '--strategy', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown strategy "nope"');
  });
});

describe('tcompact simulate (built CLI)', () => {
  it('writes simulate.md and simulate.json for every built-in policy, with recorded usage beside the replay', async () => {
    const out = tempDir('sim');
    const run = await cli(['simulate', SESSION, TAU, '--window', '100000', '--out', out]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const md = readFileSync(join(out, 'simulate.md'), 'utf8');
    const json = JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8'));
    const names = ['none', 'optimal', 'default', 'mask-10', 'checkpoint-at-0.9', 'auto', 'seed-80-first3-last10', 'seed-200k-system-last-user'];
    expect(json.policies.map((p: { name: string }) => p.name)).toEqual(names);
    for (const name of names) expect(md).toContain(`| ${name} |`);
    const by = (name: string) => json.policies.find((p: { name: string }) => p.name === name);
    // The session passes 90% of 100k: compaction policies bill less than none, and none goes over the hard limit.
    expect(by('none').callsOverHardLimit).toBeGreaterThan(0);
    for (const name of ['default', 'mask-10', 'checkpoint-at-0.9', 'auto', 'seed-80-first3-last10'])
      expect(by(name).billedInput).toBeLessThan(by('none').billedInput);
    // The default policy edits when it pays and never overflows, nor do the threshold policies.
    for (const name of ['default', 'checkpoint-at-0.9', 'auto']) expect([name, by(name).callsOverWindow, by(name).stuckTranscripts]).toEqual([name, 0, 0]);
    expect(by('default').cost.withoutCache).toBeLessThan(by('none').cost.withoutCache);
    // Billed with Anthropic's 5-minute cache (the default for Claude Code), masking an old result at every call moves
    // the rewrite beyond the 20-block lookback of the last breakpoint: each call writes its prompt again and costs more
    // than sending the whole history. The default edits only where the edit pays for its rewrite, and costs less.
    expect(json.cache.models['anthropic-5m'].transcripts).toBe(201); // the session, and tau-bench's runs name no model
    expect(by('mask-10').cost.withCache).toBeGreaterThan(by('none').cost.withCache);
    expect(by('default').cost.withCache).toBeLessThan(by('none').cost.withCache);
    expect(by('default').microCompactions).toBeGreaterThan(0);
    // Its edits keep the last result whole and are made where they pay: not at every call, as masking is.
    expect(by('default').microCompactions).toBeLessThan(by('default').calls / 2);
    // No policy costs less than the hindsight-optimal schedule, and each one's regret is its cost above it.
    for (const p of json.policies as { name: string; cost: { withCache: number }; regret?: { total: number } }[]) {
      if (p.name === 'optimal') continue;
      expect(p.regret?.total).toBeCloseTo(p.cost.withCache - by('optimal').cost.withCache, 9);
    }
    expect(by('checkpoint-at-0.9').compactions).toBeGreaterThan(0);
    // Nothing reaches 200k tokens: that seed never compacts.
    expect(by('seed-200k-system-last-user').billedInput).toBe(by('none').billedInput);
    // The session's 217 replies carry Claude Code usage; tau-bench records none.
    expect(json.recorded.transcripts).toBe(1);
    expect(json.recorded.usage.calls).toBe(217);
    expect(json.recorded.simulatedNone.calls).toBe(217);
    expect(md).toContain('## Recorded usage beside the replay');
  });

  it('gives byte-identical files on a second run', async () => {
    const a = tempDir('sim-a');
    const b = tempDir('sim-b');
    const input = join(BUNDLED, 'claude-code', 'tool_heavy.jsonl');
    for (const out of [a, b]) expect((await runMain(['simulate', input, '--window', '8000', '--out', out])).code).toBe(0);
    for (const f of ['simulate.json', 'simulate.md']) expect(readFileSync(join(a, f), 'utf8')).toBe(readFileSync(join(b, f), 'utf8'));
  });

  it('refuses an unknown policy and a bad price with exact messages', async () => {
    const out = tempDir('sim');
    const unknown = await runMain(['simulate', SESSION, '--out', out, '--policy', 'sometimes']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown policy "sometimes"');
    const price = await runMain(['simulate', SESSION, '--out', out, '--price-in', 'cheap']);
    expect([price.code, price.stderr.trim()]).toEqual([2, 'tcompact simulate: E_USAGE: --price-in must be a number >= 0, got "cheap"']);
  });
});
