import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeServer, startFakeOpenAI } from '../llm/fake-openai-server.js';
import { runMain } from '../helpers/cli-in-process.js';
import { BUNDLED, tempDir } from '../pipeline/helpers.js';

/**
 * Simulate policies with an LLM step (`summarize@0.5`), through the CLI against the loopback
 * OpenAI-compatible server, on the long real bundled Claude Code session: the replay awaits the model at each compaction.
 */
const INPUT = join(BUNDLED, 'claude-code', 'ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl');
const env = { OPENAI_API_KEY: 'test-key' };
/** Four compactions of this long session under the default tail (a shorter session's tail holds most of it). */
const WINDOW = '60000';
let server: FakeServer;

beforeAll(async () => {
  server = await startFakeOpenAI({});
});
afterAll(async () => {
  await server.close();
});

interface PolicyRow {
  name: string;
  calls: number;
  billedInput: number;
  compactions: number;
  peakPrompt: number;
}

describe('simulate with LLM steps', () => {
  it('replays summarize@0.5 with --model: the model summarizes at the trigger, and the prompts after it are smaller', async () => {
    const dir = tempDir('simulate-llm');
    const sent = server.requests.length;
    const r = await runMain(
      [
        'simulate',
        INPUT,
        '--policy',
        'summarize@0.5',
        '--window',
        WINDOW,
        '--model',
        'sim-model',
        '--llm',
        server.baseURL,
        '--focus',
        'the test plan',
        '--out',
        dir,
      ],
      { env },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'simulate.json'), 'utf8')) as { policies: PolicyRow[]; llm: { requests: number; answers: number } };
    const [none, summarize] = report.policies;
    expect(summarize.name).toBe('summarize@0.5');
    expect(summarize.calls).toBe(none.calls);
    expect(summarize.compactions).toBeGreaterThanOrEqual(1);
    expect(summarize.billedInput).toBeLessThan(none.billedInput);
    expect(summarize.peakPrompt).toBeLessThan(none.peakPrompt);
    const requests = server.requests.slice(sent);
    expect(requests.length).toBe(summarize.compactions);
    expect(report.llm.requests).toBe(requests.length);
    expect(requests.every((q) => q.body.model === 'sim-model')).toBe(true);
    // --focus reaches the summary prompt.
    expect(requests.every((q) => q.body.messages.some((m) => m.content.includes('the test plan')))).toBe(true);
    expect(readFileSync(join(dir, 'simulate.md'), 'utf8')).toContain(`LLM steps: model sim-model, ${requests.length} requests`);
  });

  it('refuses a policy with an LLM step without --model, naming the flag: exit 2', async () => {
    const dir = tempDir('simulate-llm-no-model');
    const r = await runMain(['simulate', INPUT, '--policy', 'summarize@0.5', '--out', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('strategy "summarize" needs a model: pass --model NAME');
  });
});
