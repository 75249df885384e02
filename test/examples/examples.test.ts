import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';

/** Runs an example as a user would (it imports the package by its name, which resolves to the built dist/). */
const run = (name: string) => execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, 'examples', name)], { cwd: ROOT, encoding: 'utf8' });

describe('the adapters examples, each a loop with a scripted model and no network', () => {
  it('ai-sdk-loop.ts: steps edited by the manager, the SDK history whole', () => {
    const out = run('ai-sdk-loop.ts');
    expect(out).toMatch(/reason (pays-off|cold|window)/);
    expect(out).toContain("13 steps; the SDK's history keeps all 12 tool results whole");
  }, 120_000);

  it('langchain-loop.ts: requests edited, the agent state whole', () => {
    const out = run('langchain-loop.ts');
    expect(out).toMatch(/call 13: 25 messages, 2 whole results/);
    expect(out).toContain("the agent's state keeps 12 whole results");
  }, 120_000);

  it('anthropic-loop.ts: at most 4 breakpoints per request, the history whole', () => {
    const out = run('anthropic-loop.ts');
    const counts = [...out.matchAll(/(\d+) breakpoints/g)].map((m) => Number(m[1]));
    expect(counts).toHaveLength(13);
    expect(Math.max(...counts)).toBeLessThanOrEqual(4);
    expect(out).toContain('the history keeps all 26 messages whole');
  }, 120_000);
});
