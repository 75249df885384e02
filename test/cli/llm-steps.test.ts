import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Transcript } from '../../src/model/transcript.js';
import { findViolations } from '../../src/model/validity.js';
import { type FakeServer, startFakeOpenAI } from '../llm/fake-openai-server.js';
import { readJsonl, runCli, tempDir } from '../pipeline/helpers.js';
import { runMain } from '../helpers/cli-in-process.js';

/**
 * `summarize` and `classify-tangents` named like any strategy in `compact` and `eval`, with the built CLI
 * against the loopback OpenAI-compatible server, on a real bundled Claude Code session long enough that the default tail
 * (the last 10 messages and results) leaves a middle to summarize.
 */
const INPUT = 'datasets/bundled/claude-code/subagent.jsonl';
const env = { OPENAI_API_KEY: 'test-key' };
let server: FakeServer;
const dir = tempDir('llm-steps-cli');

beforeAll(async () => {
  server = await startFakeOpenAI({});
});
afterAll(async () => {
  await server.close();
});

describe('compact with LLM steps', () => {
  it('summarizes every transcript with --strategy summarize --model, keeps them valid and in order, and reports the usage', async () => {
    const out = join(dir, 'summarized.jsonl');
    const r = await runCli(['compact', INPUT, '--strategy', 'summarize', '--model', 'gpt-4o-mini', '--llm', server.baseURL, '--out', out], {
      env,
    });
    expect(r.code).toBe(0);
    const input = readJsonl<Transcript>(join(dir, 'summarized.jsonl'));
    const report = JSON.parse(readFileSync(join(dir, 'summarized.report.json'), 'utf8'));
    expect(report.llm.requests).toBeGreaterThan(0);
    expect(report.llm.answers).toBe(report.llm.requests);
    expect(report.strategies.find((s: { name: string }) => s.name === 'summarize').runs).toBe(input.length);
    for (const t of input) expect(findViolations(t.messages)).toEqual([]);
    expect(input.some((t) => t.messages.some((m) => typeof m.content === 'string' && m.content.startsWith('[tcompact summary of')))).toBe(true);
    // The same bytes with --llm-concurrency 1: the window of transcripts in flight does not change the output.
    const serial = join(dir, 'serial.jsonl');
    const again = await runMain(
      ['compact', INPUT, '--strategy', 'summarize', '--model', 'gpt-4o-mini', '--llm', server.baseURL, '--llm-concurrency', '1', '--out', serial],
      { env },
    );
    expect(again.code).toBe(0);
    expect(readFileSync(serial, 'utf8')).toBe(readFileSync(out, 'utf8'));
  });

  it('names the missing flag when an LLM step has no model: E_CONFIG, exit 2', async () => {
    for (const strategy of ['summarize', 'classify-tangents']) {
      const r = await runMain(['compact', INPUT, '--strategy', strategy, '--out', join(dir, `${strategy}.jsonl`)]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`strategy "${strategy}" needs a model: pass --model NAME`);
    }
  });
});

describe('eval with LLM steps', () => {
  it('scores the summaries of each --model in its own row, with requests, tokens and time', async () => {
    const out = join(dir, 'eval');
    const sent = server.requests.length;
    const r = await runMain(
      ['eval', INPUT, '--strategy', 'summarize', '--strategy', 'checkpoint', '--model', 'model-a', '--model', 'model-b', '--llm', server.baseURL, '--out', out],
      { env },
    );
    expect(r.code).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'eval.json'), 'utf8'));
    const names = report.rows.map((row: { name: string }) => row.name);
    expect(names).toEqual(['original', 'summarize @ model-a', 'summarize @ model-b', 'checkpoint']);
    for (const row of report.rows.slice(1, 3)) {
      expect(row.llm.requests).toBeGreaterThan(0);
      expect(row.llm.promptTokens).toBeGreaterThan(0);
      expect(row.tokensAfter).toBeLessThan(row.tokensBefore);
    }
    expect(report.rows[3].llm).toBeUndefined();
    // The server answers both models alike (its summary is a function of the prompt): the two rows score the same.
    expect(report.rows[1].score).toEqual(report.rows[2].score);
    const models = new Set(server.requests.slice(sent).map((q) => q.body.model));
    expect(models).toEqual(new Set(['model-a', 'model-b']));
    expect(readFileSync(join(out, 'eval.md'), 'utf8')).toContain('## LLM steps');
  });
});
