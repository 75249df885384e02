import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readInputs } from '../../../src/formats/read-inputs.js';
import { createLlmSession } from '../../../src/llm/session.js';
import type { Transcript } from '../../../src/model/transcript.js';
import { createJob } from '../../../src/pipeline/job/job.js';
import { RefSink } from '../../../src/refs/ref-store.js';
import { restoreTranscript } from '../../../src/refs/restore.js';
import { parseCompactConfig } from '../../../src/strategies/compact-config.js';
import { type FakeServer, startFakeOpenAI } from '../../llm/fake-openai-server.js';
import { BUNDLED } from '../helpers.js';

async function bundledClaudeCode(): Promise<Transcript[]> {
  const out: Transcript[] = [];
  for await (const item of readInputs([join(BUNDLED, 'claude-code')], { maxLineBytes: 1 << 26 })) if (item.kind === 'transcript') out.push(item.transcript);
  return out;
}

describe('Job', () => {
  let server: FakeServer;
  beforeAll(async () => {
    server = await startFakeOpenAI();
  });
  afterAll(async () => server.close());

  it('runs a job without LLM steps whole in its first part, as compact does', async () => {
    const job = createJob(parseCompactConfig({}));
    expect(job.llmSteps).toEqual([]);
    for (const t of await bundledClaudeCode()) {
      const started = job.start(t, new RefSink());
      expect(started.kind).toBe('done');
      if (started.kind === 'done') expect(JSON.stringify(started.result.transcript)).toBe(JSON.stringify(job.compact(t, new RefSink()).transcript));
    }
  });

  it('hands a transcript on at the LLM step that is due; the two parts give the steps and tokens of the whole job', async () => {
    const config = parseCompactConfig({ strategies: ['summarize'], window: 20_000 });
    const job = createJob(config);
    const at = job.steps.findIndex((s) => s.strategy.name === 'summarize');
    expect(job.llmSteps).toEqual([at]);
    const llm = await createLlmSession({ model: 'fake-a', baseURL: server.baseURL, apiKey: 'test' });
    let handedOn = 0;
    try {
      for (const t of await bundledClaudeCode()) {
        const started = job.start(t, new RefSink());
        const whole = await job.compactAsync(t, new RefSink(), llm);
        if (started.kind === 'done') {
          expect(JSON.stringify(whole.transcript)).toBe(JSON.stringify(started.result.transcript));
          continue;
        }
        handedOn++;
        expect(started.resumeAt).toBe(at);
        // What a worker writes (its partial compaction with its own recipe), then the main thread's part on it.
        const refs = new RefSink();
        const written = job.finish(t, started.partial, refs).transcript;
        const rest = await job.resume(written, started.resumeAt, refs, llm);
        expect([...started.partial.steps, ...rest.steps].map((s) => [s.strategy, s.tokensSaved])).toEqual(whole.steps.map((s) => [s.strategy, s.tokensSaved]));
        expect(rest.tokensAfter).toBe(whole.tokensAfter);
        // Two restore layers give the input back, as one does.
        const restored = restoreTranscript(rest.transcript, refs);
        expect(restored.ok && JSON.stringify(restored.value)).toBe(JSON.stringify(t));
      }
    } finally {
      await llm.close();
    }
    expect(handedOn).toBeGreaterThan(0);
  });

  it('refuses an LLM step without a model, naming the flag', async () => {
    const job = createJob(parseCompactConfig({ strategies: ['summarize'], window: 20_000 }));
    const [long] = (await bundledClaudeCode()).sort((a, b) => b.messages.length - a.messages.length);
    expect(() => job.compact(long, null)).toThrow('strategy "summarize" needs a model: pass --model NAME');
    await expect(job.compactAsync(long, null, undefined)).rejects.toThrow('needs a model');
  });
});
