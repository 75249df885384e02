import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/pipeline/run-pipeline.js';
import { parseCompactConfig } from '../../src/strategies/compact-config.js';
import type { ShardOutput } from '../../src/pipeline/shard/types.js';
import { sectionTexts } from '../../src/pipeline/shard/encoding.js';
import { type FakeServer, startFakeOpenAI } from '../llm/fake-openai-server.js';
import { BUNDLED, tempDir } from './helpers.js';

/** The library's entry point, called as a program would: no CLI, the run in this thread or on the pool. */
describe('runPipeline from the library', () => {
  let server: FakeServer;
  beforeAll(async () => {
    server = await startFakeOpenAI();
  });
  afterAll(async () => server.close());

  it('writes report.json, report.md and report.html with the settings that produced them', async () => {
    const out = tempDir('library');
    const outcome = await runPipeline({ inputs: [join(BUNDLED, 'swe-agent')], outDir: out, config: parseCompactConfig({}), inProcess: true });
    expect(outcome.status).toBe('done');
    if (outcome.status !== 'done') return;
    for (const f of ['transcripts.jsonl', 'errors.jsonl', 'refs.jsonl', 'report.json', 'report.md', 'report.html']) expect(existsSync(join(out, f))).toBe(true);
    const { settings } = outcome.report;
    expect(settings.strategies).toEqual(['auto']);
    expect(settings.steps[0]).toBe('sanitize');
    expect(settings).toMatchObject({ keepLast: 0, keepMessages: 10, keepResults: 10, window: 200_000, refs: true });
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain('keepMessages');
    expect(html).toContain(String(outcome.report.tokens.saved));
  });

  it("runs a caller's afterShard after the LLM stage, on every shard, instead of dropping it", async () => {
    const out = tempDir('library');
    const seen: string[] = [];
    const outcome = await runPipeline({
      inputs: [join(BUNDLED, 'claude-code')],
      outDir: out,
      config: parseCompactConfig({ strategies: ['summarize'], window: 20_000 }),
      inProcess: true,
      llm: { model: 'fake-a', baseURL: server.baseURL, apiKey: 'test' },
      afterShard: async (output: ShardOutput) => {
        seen.push(sectionTexts(output).transcripts);
        return output;
      },
    });
    expect(outcome.status).toBe('done');
    if (outcome.status !== 'done') return;
    const summarize = outcome.report.strategies.find((s) => s.name === 'summarize');
    expect(summarize?.tokensSaved).toBeGreaterThan(0);
    expect(server.requests.length).toBeGreaterThan(0);
    // The hook saw the committed bytes: the transcripts after the model's summaries, exactly what the run wrote.
    expect(seen.join('')).toBe(readFileSync(join(out, 'transcripts.jsonl'), 'utf8'));
  });
});
