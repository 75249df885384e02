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

interface SimulateRun {
  json: {
    policies: (PolicyRow & { cost: { withCache: number }; compactionCalls?: { calls: number; input: number; output: number; cost: number } })[];
    llm: { requests: number; answers: number; promptTokens: number; completionTokens: number };
  };
  md: string;
  html: string;
  /** The requests the server got during the run. */
  requests: FakeServer['requests'];
}

/** simulate of summarize@0.5 against the server, with `--focus` (and `extra`). */
async function simulateSummarize(extra: string[] = []): Promise<SimulateRun> {
  const dir = tempDir('simulate-llm');
  const sent = server.requests.length;
  const args = [
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
  ];
  const r = await runMain([...args, '--out', dir, ...extra], { env });
  expect([r.code, r.stderr]).toEqual([0, '']);
  return {
    json: JSON.parse(readFileSync(join(dir, 'simulate.json'), 'utf8')) as SimulateRun['json'],
    md: readFileSync(join(dir, 'simulate.md'), 'utf8'),
    html: readFileSync(join(dir, 'simulate.html'), 'utf8'),
    requests: server.requests.slice(sent),
  };
}

/** The run without --batch, read by the two tests below: each simulation of the session costs seconds. */
let online: Promise<SimulateRun> | undefined;
const onlineRun = () => (online ??= simulateSummarize());

describe('simulate with LLM steps', () => {
  it('replays summarize@0.5 with --model: the model summarizes at the trigger, and the prompts after it are smaller', async () => {
    const { json: report, md, requests } = await onlineRun();
    const [none, summarize] = report.policies.filter((p) => p.name !== 'optimal');
    expect(summarize.name).toBe('summarize@0.5');
    expect(summarize.calls).toBe(none.calls);
    expect(summarize.compactions).toBeGreaterThanOrEqual(1);
    expect(summarize.billedInput).toBeLessThan(none.billedInput);
    expect(summarize.peakPrompt).toBeLessThan(none.peakPrompt);
    expect(requests.length).toBe(summarize.compactions);
    expect(report.llm.requests).toBe(requests.length);
    expect(requests.every((q) => q.body.model === 'sim-model')).toBe(true);
    // --focus reaches the summary prompt.
    expect(requests.every((q) => q.body.messages.some((m) => m.content.includes('the test plan')))).toBe(true);
    expect(md).toContain(`LLM steps: model sim-model, ${requests.length} requests`);
  });

  it("bills the summarizer's prompts and answers in their own column, at half price with --batch", async () => {
    const online = await onlineRun();
    const [none, summarize] = online.json.policies.filter((p) => p.name !== 'optimal');
    expect(none.compactionCalls).toBeUndefined();
    const calls = summarize.compactionCalls as NonNullable<typeof summarize.compactionCalls>;
    // One call per compaction, with the tokens the server reported; sim-model has no list price: the agent's prices.
    expect([calls.calls, calls.input, calls.output]).toEqual([summarize.compactions, online.json.llm.promptTokens, online.json.llm.completionTokens]);
    expect(calls.input).toBeGreaterThan(0);
    expect(calls.cost).toBeCloseTo((calls.input * 3 + calls.output * 15) / 1e6, 9);
    expect(online.md).toContain('| compaction calls |');
    expect(online.md).toContain(`- \`summarize@0.5\`: ${calls.calls} calls,`);
    expect(online.html).toContain('compaction calls');

    const batch = await simulateSummarize(['--batch']);
    const batched = batch.json.policies.find((p) => p.name === summarize.name)!;
    expect(batched.compactionCalls?.cost).toBeCloseTo(calls.cost / 2, 9);
    // The agent's own calls are billed the same: only the compaction calls' price changed.
    expect(batched.cost.withCache - (batched.compactionCalls?.cost ?? 0)).toBeCloseTo(summarize.cost.withCache - calls.cost, 9);
    expect(batch.md).toContain('(Batch API price)');
  });

  it('refuses --batch without --model', async () => {
    const dir = tempDir('simulate-llm-batch');
    const r = await runMain(['simulate', INPUT, '--batch', '--out', dir]);
    expect([r.code, r.stderr.trim()]).toEqual([
      2,
      "tcompact simulate: E_USAGE: simulate: --batch needs --model NAME (only the LLM steps' calls have a batch price)",
    ]);
  });

  it('refuses a policy with an LLM step without --model, naming the flag: exit 2', async () => {
    const dir = tempDir('simulate-llm-no-model');
    const r = await runMain(['simulate', INPUT, '--policy', 'summarize@0.5', '--out', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('strategy "summarize" needs a model: pass --model NAME');
  });
});
