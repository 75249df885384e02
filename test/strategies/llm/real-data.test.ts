import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../helpers/seeded-random.js';
import type { LlmStepResult } from '../../../src/strategies/llm/llm-step.js';
import { SUMMARY_SECTIONS } from '../../../src/strategies/llm/prompts.js';
import { type StepTestOptions, createLlmSteps } from './llm-steps.js';
import type { Transcript } from '../../../src/model/transcript.js';
import { findViolations } from '../../../src/model/validity.js';
import { protectedRange } from '../../../src/strategies/boundaries.js';
import { RefSink } from '../../../src/refs/ref-store.js';
import { countTranscript } from '../../../src/tokens/breakdown.js';
import { getTokenizer } from '../../../src/tokens/tokenizer.js';
import { bundledTranscripts } from '../../helpers/bundled-transcripts.js';
import { SkippingClock } from '../../llm/fake-clock.js';
import { type FakeServerOptions, startFakeOpenAI } from '../../llm/fake-openai-server.js';
import { tempDir } from '../../helpers/temp-dir.js';

const tok = getTokenizer('o200k_base');
const tokens = (t: Transcript) => countTranscript(t, tok).total;

let sample: Transcript[];
let big: Transcript;
const dirs: string[] = [];

/** Messages the default tail (the last 10 messages and results, the first request as head) leaves to summarize. */
function middle(t: Transcript): number {
  const range = protectedRange(t.messages, { keepLast: 0 });
  return range.tailStart - range.headEnd;
}

beforeAll(async () => {
  const all = await bundledTranscripts();
  // The bundled transcripts (every source) with a middle of at least two messages under the default tail, and 10 of the
  // others (all unchanged, never sent).
  sample = [...all.filter((t) => middle(t) >= 2), ...all.filter((t) => middle(t) < 2).slice(0, 10)];
  big = all.reduce((a, b) => (tokens(b) > tokens(a) ? b : a));
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function runAll(inputs: Transcript[], serverOptions: FakeServerOptions, options: StepTestOptions = {}) {
  const server = await startFakeOpenAI(serverOptions);
  const summarizer = await createLlmSteps(
    { model: 'gpt-4o-mini', baseURL: server.baseURL, apiKey: 'test', llmConcurrency: 4, ...options },
    { clock: new SkippingClock(), random: seededRandom(9) },
  );
  try {
    const outs = await Promise.all(inputs.map((t) => summarizer.summarize(t, { tokenizer: tok, refs: new RefSink(), window: 200_000 })));
    return { outs, requests: server.requests, usage: summarizer.usage() };
  } finally {
    await summarizer.close();
    await server.close();
  }
}

function expectEveryTranscriptSafe(inputs: Transcript[], outs: LlmStepResult[]): void {
  expect(outs).toHaveLength(inputs.length);
  outs.forEach((o, i) => {
    expect(o.transcript.id).toBe(inputs[i].id);
    expect(findViolations(o.transcript.messages)).toEqual(findViolations(inputs[i].messages));
    expect(tokens(o.transcript)).toBeLessThanOrEqual(tokens(inputs[i]));
  });
}

describe('summarize on real transcripts (bundled Claude Code sessions and tau-bench runs)', () => {
  it('summarizes every transcript with a middle span, keeps all of them, and a cached re-run is byte-identical with no request', async () => {
    const cacheDir = tempDir('llm-real');
    dirs.push(cacheDir);
    const first = await runAll(sample, {}, { cacheDir });
    expectEveryTranscriptSafe(sample, first.outs);
    const summarized = first.outs.filter((o) => o.llm.outcome === 'summarized');
    for (const o of summarized) {
      const summary = o.transcript.messages.find((m) => typeof m.content === 'string' && m.content.startsWith('[tcompact summary')) as { content: string };
      for (const s of SUMMARY_SECTIONS) expect(summary.content).toContain(`## ${s.title}`);
    }
    const before = sample.reduce((n, t) => n + tokens(t), 0);
    const after = first.outs.reduce((n, o) => n + tokens(o.transcript), 0);
    console.log(
      `[real] ${sample.length} transcripts: ${summarized.length} summarized, ${first.outs.filter((o) => o.llm.outcome === 'unchanged').length} unchanged, ` +
        `${first.outs.filter((o) => o.llm.outcome === 'fallback').length} fell back; tokens ${before} -> ${after}; ` +
        `${first.requests.length} requests, ${first.usage.promptTokens} prompt + ${first.usage.completionTokens} completion tokens`,
    );
    expect(summarized.length).toBeGreaterThanOrEqual(sample.length / 2);
    expect(after).toBeLessThan(before);

    const second = await runAll(sample, {}, { cacheDir });
    expect(second.requests).toHaveLength(0);
    expect(second.outs.map((o) => JSON.stringify(o.transcript))).toEqual(first.outs.map((o) => JSON.stringify(o.transcript)));
    expect(second.usage).toMatchObject({ answers: 0, promptTokens: 0, completionTokens: 0 });
    expect(second.usage.cacheHits).toBeGreaterThanOrEqual(first.outs.filter((o) => o.llm.outcome !== 'unchanged').length);
  });

  it('fits the largest real session into a 32k-token summarizer by leaving out tool results or splitting it', async () => {
    const { outs, requests } = await runAll([big], { maxPromptChars: 60_000 }, { contextWindow: 32_000, maxTokens: 2000 });
    expectEveryTranscriptSafe([big], outs);
    const llm = outs[0].llm;
    expect(llm.outcome).toBe('summarized');
    const refused = requests.filter((r) => r.fault === 'context_length_exceeded').map((r) => r.promptChars);
    for (let i = 1; i < refused.length; i++) expect(refused[i]).toBeLessThan(refused[i - 1]);
    expect(new Set(requests.map((r) => JSON.stringify(r.body))).size).toBe(requests.length);
    console.log(
      `[real big] ${big.id}: ${big.messages.length} messages, ${tokens(big)} -> ${tokens(outs[0].transcript)} tokens; ` +
        `${requests.length} requests (${refused.length} refused as too long), ${llm.chunks} part(s), ${(llm.droppedToolResults ?? 0) * 100}% tool results left out`,
    );
  });

  it('keeps every transcript when the server only ever answers 500', async () => {
    const inputs = sample.slice(0, 12);
    const { outs, usage } = await runAll(inputs, { script: () => ({ kind: 'status', status: 500 }) }, { maxAttempts: 2 });
    expectEveryTranscriptSafe(inputs, outs);
    for (const o of outs) expect(['fallback', 'unchanged']).toContain(o.llm.outcome);
    const withSpan = outs.filter((o) => o.llm.outcome === 'fallback');
    expect(usage.requests).toBe(withSpan.length * 2);
    for (const o of withSpan) expect(o.llm.fallback!.reason).toMatch(/^server_error/);
  });
});
