import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { seededRandom } from '../../helpers/seeded-random.js';
import type { LlmStepResult } from '../../../src/strategies/llm/llm-step.js';
import { SUMMARY_SECTIONS } from '../../../src/strategies/llm/prompts.js';
import { summarize } from '../../../src/strategies/llm/summarize.js';
import { runStepsAsync } from '../../../src/strategies/runner.js';
import { LAST_TURN } from '../../helpers/transcript-kit.js';
import { type LlmSteps, type StepTestOptions, createLlmSteps } from './llm-steps.js';
import type { Message } from '../../../src/model/message.js';
import type { Transcript } from '../../../src/model/transcript.js';
import { findViolations } from '../../../src/model/validity.js';
import { RefSink } from '../../../src/refs/ref-store.js';
import { STRATEGIES } from '../../../src/strategies/registry.js';
import type { StrategyContext } from '../../../src/strategies/types.js';
import { countTranscript } from '../../../src/tokens/breakdown.js';
import { getTokenizer } from '../../../src/tokens/tokenizer.js';
import { assistant, call, result, sys, transcript, user } from '../../helpers/transcript-kit.js';
import { SkippingClock } from '../../llm/fake-clock.js';
import { type FakeServer, type FakeServerOptions, type Fault, startFakeOpenAI } from '../../llm/fake-openai-server.js';

const tok = getTokenizer('o200k_base');
const ctxOf = (refs: RefSink | null = new RefSink()): StrategyContext => ({ tokenizer: tok, refs, window: 200_000 });
const tokens = (t: Transcript) => countTranscript(t, tok).total;

const appSource = Array.from({ length: 120 }, (_, i) => `export function step${i}(x: number): number { return x * ${i} + ${i % 7}; }`).join('\n');
const lintOutput = Array.from({ length: 60 }, (_, i) => `/repo/src/app.ts:${i + 1}:5  warning  Unexpected any  @typescript-eslint/no-explicit-any`).join('\n');

/** A small coding session: the middle (messages 2 to 9) is what summarize replaces with keepLast 1. */
function session(id = 't1'): Transcript {
  return transcript(
    [
      sys('You are a coding agent.'),
      user('Fix the failing test in /repo/src/app.ts and keep the public API unchanged.'),
      assistant('I will read the file first.', { tool_calls: [call('c1', 'Read', { file_path: '/repo/src/app.ts' })] }),
      result('c1', appSource),
      assistant('The bug is in step3; I fixed it.', {
        tool_calls: [call('c2', 'Edit', { file_path: '/repo/src/app.ts', old_string: 'x * 3', new_string: 'x * 4' })],
      }),
      result('c2', 'The file /repo/src/app.ts has been updated.'),
      user('Also run the linter.'),
      assistant(null, { tool_calls: [call('c3', 'Bash', { command: 'npx eslint src' })] }),
      result('c3', lintOutput, { is_error: true }),
      assistant('The linter reports 60 warnings about any.'),
      user('Now deploy to staging.'),
      assistant('Deploying to staging.'),
    ],
    { id },
  );
}

let server: FakeServer | undefined;
let summarizer: LlmSteps | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await summarizer?.close();
  await server?.close();
  server = undefined;
  summarizer = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function setup(serverOptions: FakeServerOptions = {}, options: StepTestOptions = {}) {
  server = await startFakeOpenAI(serverOptions);
  const clock = new SkippingClock();
  // The small hand-made sessions are framed by their last turn (LAST_TURN), as the other strategies' unit tests are.
  summarizer = await createLlmSteps(
    { model: 'gpt-4o-mini', baseURL: server.baseURL, apiKey: 'test', ...LAST_TURN, ...options },
    { clock, random: seededRandom(3) },
  );
  return { server, summarizer, clock };
}

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'tcompact-llm-'));
  dirs.push(d);
  return d;
}

const text = (m: Message) => (m as { content: string }).content;

/** What every result must satisfy whatever the server did. */
function expectSafe(input: Transcript, out: LlmStepResult): void {
  expect(out.transcript.id).toBe(input.id);
  expect(findViolations(out.transcript.messages)).toEqual([]);
  expect(tokens(out.transcript)).toBeLessThanOrEqual(tokens(input));
  expect(out.transcript.messages.at(-2)).toBe(input.messages.at(-2)); // the last user request, the same object
}

describe('summarize', () => {
  it('replaces the middle with one summary message that says where the record is and repeats the last request', async () => {
    const { server, summarizer } = await setup();
    const input = session();
    const refs = new RefSink();
    const out = await summarizer.summarize(input, ctxOf(refs));
    expectSafe(input, out);
    expect(server.requests).toHaveLength(1);
    const m = out.transcript.messages;
    expect(m).toHaveLength(5);
    expect(m.slice(0, 2)).toEqual(input.messages.slice(0, 2));
    expect(m[0]).toBe(input.messages[0]);
    expect(m.slice(3)).toEqual(input.messages.slice(10));
    const summary = text(m[2]);
    expect(m[2].role).toBe('user');
    const ref = /^\[tcompact summary of 8 messages\] \(ref: ([0-9a-f]{16})\)\n/.exec(summary)?.[1];
    expect(ref).toBeDefined();
    expect(JSON.parse(refs.get(ref!)!)).toEqual(input.messages.slice(2, 10));
    for (const s of SUMMARY_SECTIONS) expect(summary).toContain(`## ${s.title}`);
    expect(summary).toContain('/repo/src/app.ts');
    expect(summary).toContain(`under ref ${ref}`);
    expect(summary).toContain('The last user request was:\n> Now deploy to staging.');
    expect(out).toMatchObject({ messagesRemoved: 8, messagesChanged: 0 });
    expect(out.llm).toMatchObject({ outcome: 'summarized', span: { from: 2, to: 10 }, droppedToolResults: 0, chunks: 1 });
    expect(out.llm.usage).toMatchObject({ requests: 1, answers: 1, cacheHits: 0 });
    expect(out.llm.usage.promptTokens).toBeGreaterThan(0);
    expect(out.details).toMatchObject({ llmRequests: 1, llmAnswers: 1, llmFallbacks: 0 });
    console.log(`[summarize] tokens ${tokens(input)} -> ${tokens(out.transcript)}; prompt ${out.llm.promptSizes[0]} tokens`);
  });

  it('sends the structured prompt with the focus, the original messages and temperature 0', async () => {
    const { server, summarizer } = await setup({}, { focus: 'the lint warnings' });
    await summarizer.summarize(session(), ctxOf());
    const body = server.requests[0].body;
    expect(body.temperature).toBe(0);
    expect(body.max_tokens).toBe(4096);
    expect(body.messages[0].content).toContain('Pay particular attention to: the lint warnings');
    for (const s of SUMMARY_SECTIONS) expect(body.messages[0].content).toContain(`## ${s.title}`);
    expect(body.messages[1].content).toContain('[#3 tool Read]\nexport function step0');
    expect(body.messages[1].content).toContain('[#8 tool Bash (error)]');
    expect(body.messages[1].content).toContain('-> Read({"file_path":"/repo/src/app.ts"})');
    expect(body.messages[1].content).not.toContain('Now deploy to staging');
  });

  it('says the record was not kept when refs are off', async () => {
    const { summarizer } = await setup();
    const out = await summarizer.summarize(session(), ctxOf(null));
    const summary = text(out.transcript.messages[2]);
    expect(summary.split('\n')[0]).toBe('[tcompact summary of 8 messages]');
    expect(summary).toContain('was not kept (refs were turned off)');
  });

  it('reports like a runner step for the pipeline: savings add up and the LLM report rides along', async () => {
    const { summarizer } = await setup();
    const input = session();
    const steps = [{ strategy: summarize, config: summarize.config.parse(LAST_TURN) }];
    const run = await runStepsAsync(input, steps, { ...ctxOf(), llm: summarizer.session });
    const [step] = run.steps;
    expect(step).toMatchObject({ strategy: 'summarize', messagesRemoved: 8, tokensBefore: tokens(input), tokensAfter: tokens(run.transcript) });
    expect(step.tokensSaved).toBe(step.tokensBefore - step.tokensAfter);
    expect(run.tokensAfter).toBe(step.tokensAfter);
    expect(step.llm?.outcome).toBe('summarized');
    expect(step.details).toMatchObject({ llmRequests: 1 });
  });

  it('leaves a transcript with no middle span unchanged, without calling the model', async () => {
    const { server, summarizer } = await setup();
    const input = transcript([sys('s'), user('hello'), assistant('hi')]);
    const out = await summarizer.summarize(input, ctxOf());
    expect(out.transcript).toBe(input);
    expect(out.llm.outcome).toBe('unchanged');
    expect(server.requests).toHaveLength(0);
  });
});

describe('summarize guards and fallbacks', () => {
  const fallbackApplied = () => (STRATEGIES.checkpoint ? ['checkpoint'] : []);

  for (const [name, fault, reason] of [
    ['an empty answer', { kind: 'empty' }, 'empty summary'],
    ['an answer without the sections', { kind: 'malformed' }, 'malformed summary: missing section(s)'],
    ['a 200 that is not JSON', { kind: 'garbage' }, 'bad response'],
  ] as [string, Fault, string][]) {
    it(`rejects ${name} maxAttempts times, then falls back and reports why`, async () => {
      const { server, summarizer } = await setup({ script: () => fault });
      const input = session();
      const out = await summarizer.summarize(input, ctxOf());
      expectSafe(input, out);
      expect(server.requests).toHaveLength(3);
      expect(out.llm.outcome).toBe('fallback');
      expect(out.llm.fallback).toMatchObject({ applied: fallbackApplied() });
      expect(out.llm.fallback!.reason).toContain('every answer was rejected (3)');
      expect(out.llm.usage.rejections).toHaveLength(3);
      expect(out.llm.usage.rejections[0]).toContain(reason);
      expect(out.notes![0]).toMatch(/^summarize fell back to /);
      expect(out.details).toMatchObject({ llmFallbacks: 1, llmRejectedAnswers: 3 });
    });
  }

  it('accepts a good answer after a rejected one', async () => {
    const { server, summarizer } = await setup({ faults: [{ kind: 'empty' }] });
    const out = await summarizer.summarize(session(), ctxOf());
    expect(server.requests).toHaveLength(2);
    expect(out.llm.outcome).toBe('summarized');
    expect(out.notes![0]).toContain('rejected 1 answer(s)');
  });

  it('rejects a summary that is not smaller than the span it replaces', async () => {
    const huge = SUMMARY_SECTIONS.map((s) => `## ${s.title}\n${'Everything happened in great detail. '.repeat(400)}`).join('\n\n');
    const { summarizer } = await setup({ script: () => ({ kind: 'text', text: huge }) });
    const input = session();
    const out = await summarizer.summarize(input, ctxOf());
    expectSafe(input, out);
    expect(out.llm.outcome).toBe('fallback');
    expect(out.llm.usage.rejections[0]).toMatch(/^summary not smaller: \d+ tokens in place of \d+$/);
  });

  it('falls back after 3 attempts when the server keeps answering 500', async () => {
    const { server, summarizer } = await setup({ script: () => ({ kind: 'status', status: 500 }) });
    const input = session();
    const out = await summarizer.summarize(input, ctxOf());
    expectSafe(input, out);
    expect(server.requests).toHaveLength(3);
    expect(out.llm.fallback!.reason).toMatch(/^server_error: /);
    expect(out.llm.usage.failures).toEqual(['server_error', 'server_error', 'server_error']);
  });

  it('falls back after a 429 storm, having waited the Retry-After between attempts', async () => {
    const { server, summarizer, clock } = await setup({ script: () => ({ kind: 'rate_limit', retryAfter: '4' }) });
    const out = await summarizer.summarize(session(), ctxOf());
    expect(server.requests).toHaveLength(3);
    expect(out.llm.fallback!.reason).toMatch(/^rate_limited: /);
    expect(clock.sleeps).toHaveLength(2);
    expect(summarizer.usage()).toMatchObject({ requests: 3, pauses: 2, failuresByCode: { rate_limited: 3 }, jobsFailed: 1 });
  });

  it('falls back when every request hangs past the timeout', async () => {
    const { server, summarizer } = await setup({ script: () => ({ kind: 'hang' }) }, { timeoutMs: 150 });
    const input = session();
    const out = await summarizer.summarize(input, ctxOf());
    expectSafe(input, out);
    expect(server.requests).toHaveLength(3);
    expect(out.llm.fallback!.reason).toMatch(/^timeout: no answer within 150 ms/);
  });
});

describe('summarize when the span is too long', () => {
  it('leaves out tool results step by step after context_length_exceeded, never resending a refused prompt', async () => {
    const input = session();
    // Refuses any prompt holding the whole Read output (about 9,000 characters); the lint output alone fits.
    const { server, summarizer } = await setup({ maxPromptChars: 8000 });
    const out = await summarizer.summarize(input, ctxOf());
    expectSafe(input, out);
    const kinds = server.requests.map((r) => r.fault);
    expect(kinds.at(-1)).toBe('ok');
    expect(kinds.slice(0, -1).every((k) => k === 'context_length_exceeded')).toBe(true);
    const sizes = server.requests.map((r) => r.promptChars);
    for (let i = 1; i < sizes.length; i++) expect(sizes[i]).toBeLessThan(sizes[i - 1]);
    expect(new Set(server.requests.map((r) => JSON.stringify(r.body))).size).toBe(server.requests.length);
    expect(out.llm.outcome).toBe('summarized');
    expect(out.llm.droppedToolResults).toBeGreaterThan(0);
    expect(out.llm.promptSizes).toHaveLength(server.requests.length);
    const resent = server.requests.length - new Set(server.requests.map((r) => JSON.stringify(r.body))).size;
    console.log(
      `[shrink] prompt chars ${sizes.join(' -> ')}; accepted with ${out.llm.droppedToolResults! * 100}% of tool results left out; retries of the same prompt: ${resent}`,
    );
  });

  it('walks the drop levels 0, 10, 20, 50 percent in order until the server accepts', async () => {
    const reads = Array.from({ length: 10 }, (_, i) => [
      assistant(`Reading part ${i}.`, { tool_calls: [call(`r${i}`, 'Read', { file_path: `/repo/docs/part${i}.md` })] }),
      result(`r${i}`, `Part ${i}. ${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(18)}`),
    ]).flat();
    const input = transcript([sys('s'), user('Read all the docs.'), ...reads, user('Summarize them.'), assistant('ok')]);
    const { server, summarizer } = await setup({ maxPromptChars: 9000 });
    const out = await summarizer.summarize(input, ctxOf());
    expectSafe(input, out);
    expect(server.requests.map((r) => r.fault)).toEqual(['context_length_exceeded', 'context_length_exceeded', 'context_length_exceeded', 'ok']);
    expect(out.llm.droppedToolResults).toBe(0.5);
    const prompts = server.requests.map((r) => r.body.messages[1].content);
    expect(prompts.map((p) => (p.match(/\(output left out: \d+ tokens\)/g) ?? []).length)).toEqual([0, 1, 2, 5]);
    // Oldest first: at 20 percent, the results of parts 0 and 1 are the ones left out.
    expect(prompts[2]).toContain('[#3 tool Read] (output left out:');
    expect(prompts[2]).toContain('[#5 tool Read] (output left out:');
    expect(prompts[2]).toContain('[#7 tool Read]\nPart 2.');
  });

  it('splits the span into parts summarized in order when even no tool results is too long', async () => {
    const chatter = Array.from({ length: 12 }, (_, i) => [
      user(`Request ${i}: ${'please look at the module carefully and explain it. '.repeat(30)}`),
      assistant(`Answer ${i}: ${'the module does many things that are described here. '.repeat(30)}`),
    ]).flat();
    const input = transcript([sys('s'), user('Start.'), ...chatter, user('Finish.'), assistant('Done.')]);
    const { server, summarizer } = await setup({ maxPromptChars: 12_000 });
    const out = await summarizer.summarize(input, ctxOf());
    expectSafe(input, out);
    expect(out.llm.outcome).toBe('summarized');
    expect(out.llm.chunks).toBeGreaterThan(1);
    const parts = server.requests.filter((r) => r.fault === 'ok');
    expect(parts).toHaveLength(out.llm.chunks!);
    parts.forEach((r, k) => expect(r.body.messages[1].content).toContain(`This is part ${k + 1} of ${parts.length}`));
    const summary = text(out.transcript.messages[2]);
    for (const s of SUMMARY_SECTIONS) expect(summary.split(`## ${s.title}\n`)).toHaveLength(2);
    expect(summary).toContain('- Request 0:');
    expect(summary).toContain('- Request 11:');
  });

  it('uses no request to learn a span is over the model window by our own count', async () => {
    const input = session();
    const { server, summarizer } = await setup({}, { contextWindow: 4000, maxTokens: 1000 });
    const out = await summarizer.summarize(input, ctxOf());
    expect(out.llm.outcome).toBe('summarized');
    expect(server.requests.every((r) => r.fault === 'ok')).toBe(true);
    expect(Math.max(...out.llm.promptSizes)).toBeLessThanOrEqual(summarizer.inputBudget);
  });
});

describe('summarize cache and earlier summaries', () => {
  it('pays once: a second run with the same cache directory makes no request and gives the same bytes', async () => {
    const cacheDir = tempDir();
    const first = await setup({}, { cacheDir });
    const a = await first.summarizer.summarize(session(), ctxOf());
    expect(first.server.requests).toHaveLength(1);
    await first.summarizer.close();
    await first.server.close();
    const second = await setup({}, { cacheDir });
    const b = await second.summarizer.summarize(session(), ctxOf());
    expect(second.server.requests).toHaveLength(0);
    expect(JSON.stringify(b.transcript)).toBe(JSON.stringify(a.transcript));
    expect(b.llm.usage).toMatchObject({ requests: 0, cacheHits: 1, promptTokens: 0 });
    expect(second.summarizer.usage()).toMatchObject({ cacheHits: 1, answers: 0 });
  });

  it('remembers a span whose answers were all rejected, so a re-run falls back the same way without paying', async () => {
    const cacheDir = tempDir();
    const first = await setup({ script: () => ({ kind: 'malformed' }) }, { cacheDir });
    const a = await first.summarizer.summarize(session(), ctxOf());
    expect(first.server.requests).toHaveLength(3);
    await first.summarizer.close();
    await first.server.close();
    const second = await setup({}, { cacheDir });
    const b = await second.summarizer.summarize(session(), ctxOf());
    expect(second.server.requests).toHaveLength(0);
    expect(b.llm.outcome).toBe('fallback');
    expect(JSON.stringify(b.transcript)).toBe(JSON.stringify(a.transcript));
    expect(b.llm.usage.rejections[0]).toMatch(/^\(cached\) malformed summary/);
  });

  it('does not remember transient failures: a re-run after a 500 storm asks again', async () => {
    const cacheDir = tempDir();
    const first = await setup({ script: () => ({ kind: 'status', status: 500 }) }, { cacheDir });
    expect((await first.summarizer.summarize(session(), ctxOf())).llm.outcome).toBe('fallback');
    await first.summarizer.close();
    await first.server.close();
    const second = await setup({}, { cacheDir });
    expect((await second.summarizer.summarize(session(), ctxOf())).llm.outcome).toBe('summarized');
    expect(second.server.requests).toHaveLength(1);
  });

  it('sends identical spans of one run once, even at the same time', async () => {
    const { server, summarizer } = await setup({}, { llmConcurrency: 4 });
    const outs = await Promise.all(['a', 'b', 'c'].map((id) => summarizer.summarize(session(id), ctxOf())));
    expect(server.requests).toHaveLength(1);
    expect(outs.map((o) => o.llm.outcome)).toEqual(['summarized', 'summarized', 'summarized']);
    expect(outs.map((o) => o.llm.usage.cacheHits)).toEqual([0, 1, 1]);
  });

  it('summarizes from the original messages, never from an earlier summary', async () => {
    const { server, summarizer } = await setup();
    const refs = new RefSink();
    const once = await summarizer.summarize(session(), ctxOf(refs));
    const earlier = once.transcript.messages[2];
    const grown = transcript([...once.transcript.messages, user('Then write the changelog.'), assistant('Changelog written.')]);
    const twice = await summarizer.summarize(grown, ctxOf(refs));
    expect(server.requests).toHaveLength(2);
    const prompt = server.requests[1].body.messages[1].content;
    expect(prompt).not.toContain('[tcompact summary');
    expect(prompt).toContain('export function step0');
    expect(prompt).toContain('Now deploy to staging.');
    const m = twice.transcript.messages;
    expect(m).toHaveLength(5);
    expect(text(m[2])).toMatch(/^\[tcompact summary of 3 messages\]/);
    // The new ref stores what was replaced (the earlier summary included), so restore unwinds both.
    const ref = /\(ref: ([0-9a-f]{16})\)/.exec(text(m[2]))![1];
    expect(JSON.parse(refs.get(ref)!)[0]).toEqual(earlier);
  });

  it('keeps an earlier summary verbatim when its original cannot be found, and summarizes only after it', async () => {
    const { server, summarizer } = await setup();
    const once = await summarizer.summarize(session(), ctxOf(new RefSink()));
    const earlier = once.transcript.messages[2];
    const more = Array.from({ length: 3 }, (_, i) => [
      user(`Next task ${i}: ${'details '.repeat(200)}`),
      assistant(`Did task ${i}: ${'result '.repeat(200)}`),
    ]).flat();
    const grown = transcript([...once.transcript.messages, ...more, user('Wrap up.'), assistant('ok')]);
    const out = await summarizer.summarize(grown, ctxOf(new RefSink()));
    expect(out.llm.outcome).toBe('summarized');
    expect(out.transcript.messages[2]).toBe(earlier);
    expect(server.requests[1].body.messages[1].content).not.toContain('[tcompact summary');
    expect(out.llm.span).toEqual({ from: 3, to: 11 });
  });
});

describe('usage and cost', () => {
  it('reports tokens and the cost from gpt-tokenizer prices, or from priceIn/priceOut', async () => {
    const { summarizer } = await setup({}, { model: 'gpt-4o' });
    const out = await summarizer.summarize(session(), ctxOf());
    const u = summarizer.usage();
    expect(u).toMatchObject({ model: 'gpt-4o', answers: 1, requests: 1, price: { source: 'gpt-tokenizer' } });
    expect(u.totalTokens).toBe(u.promptTokens + u.completionTokens);
    expect(u.costUsd).toBeCloseTo((u.promptTokens * u.price!.inPerMillion + u.completionTokens * u.price!.outPerMillion) / 1e6, 12);
    expect(out.llm.costUsd).toBeCloseTo(u.costUsd!, 12);
    await summarizer.close();
    await server!.close();

    const local = await setup({}, { model: 'qwen2.5:7b', contextWindow: 32_000 });
    await local.summarizer.summarize(session(), ctxOf());
    expect(local.summarizer.usage()).toMatchObject({ costUsd: null, price: null });
    await local.summarizer.close();
    await local.server.close();

    const priced = await setup({}, { model: 'qwen2.5:7b', contextWindow: 32_000, priceIn: 0.5, priceOut: 2 });
    await priced.summarizer.summarize(session(), ctxOf());
    const p = priced.summarizer.usage();
    expect(p.price).toEqual({ inPerMillion: 0.5, outPerMillion: 2, source: 'config' });
    expect(p.costUsd).toBeCloseTo((p.promptTokens * 0.5 + p.completionTokens * 2) / 1e6, 12);
  });
});

describe('whatever the server does', () => {
  it('returns every transcript, valid and never larger, under a seeded mix of faults', async () => {
    const random = seededRandom(11);
    const kinds: Fault[] = [
      { kind: 'ok' },
      { kind: 'ok' },
      { kind: 'rate_limit', retryAfter: '1' },
      { kind: 'status', status: 503 },
      { kind: 'empty' },
      { kind: 'malformed' },
      { kind: 'garbage' },
      { kind: 'context_length_exceeded' },
    ];
    const { server, summarizer } = await setup({ script: () => kinds[Math.floor(random() * kinds.length)] }, { llmConcurrency: 3 });
    const inputs = Array.from({ length: 12 }, (_, i) => {
      const t = session(`s${i}`);
      // Distinct spans, so each transcript asks its own question.
      (t.messages[3] as { content: string }).content += `\n// variant ${i}`;
      return t;
    });
    const outs = await Promise.all(inputs.map((t) => summarizer.summarize(t, ctxOf())));
    outs.forEach((o, i) => expectSafe(inputs[i], o));
    const summarized = outs.filter((o) => o.llm.outcome === 'summarized').length;
    const fellBack = outs.filter((o) => o.llm.outcome === 'fallback').length;
    expect(summarized + fellBack).toBe(12);
    console.log(`[fault mix] 12 transcripts, ${server.requests.length} requests: ${summarized} summarized, ${fellBack} fell back`);
  });
});
