import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readInputs } from '../../src/formats/read-inputs.js';
import type { LlmRunUsage } from '../../src/llm/session.js';
import type { Message } from '../../src/model/message.js';
import type { Transcript } from '../../src/model/transcript.js';
import { findViolations } from '../../src/model/validity.js';
import { type FakeServer, type RecordedRequest, deterministicSummary, startFakeOpenAI } from '../llm/fake-openai-server.js';
import { readJsonl, runCli, sha256, tempDir } from './helpers.js';

/**
 * `tcompact run --model --llm URL` against a loopback Chat Completions server, on the bundled real dataset: the
 * summarizer step of `auto` goes to the model on the main thread for transcripts above its threshold (a 20k window
 * makes 4 of the 213 qualify), every transcript is still in the output, the summaries are in place, the server saw
 * traffic within the limits, report.json has the usage, and the answer cache makes a re-run free. A second server
 * fails some jobs for good: those transcripts fall back to checkpoint and report.json says which and why.
 */
const env = { OPENAI_API_KEY: 'test-key' };
const WINDOW = '20000';
const RPM = 600;
const TPM = 200_000;
/** What the server announces: the run's rpm must end at this tighter figure. */
const SERVER_RPM = 500;
/** The first answer says no request is left for 1 s: the next request may not reach the server before that. */
const SERVER_RESET_MS = 1000;
const PRICE_IN = 1;
const PRICE_OUT = 2;
/** The one transcript whose last turn alone is over the 20k window (see the test that names it). */
const OVERSIZED_LAST_TURN = 'ae4a77f8-aedd-4bc1-888f-c94edc91af04';

interface StrategyTotals {
  name: string;
  runs: number;
  skipped: number;
  tokensSaved: number;
  details: Record<string, number>;
}

interface LlmReport {
  transcripts: number;
  strategies: StrategyTotals[];
  llm: LlmRunUsage;
}

const readReport = (out: string) => JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as LlmReport;
const strategy = (r: LlmReport, name: string) => r.strategies.find((s) => s.name === name);
const textOf = (m: Message) => (typeof m.content === 'string' ? m.content : '');

async function inputIds(): Promise<string[]> {
  const ids: string[] = [];
  for await (const item of readInputs(['datasets/bundled'], { maxLineBytes: 1 << 26 })) if (item.kind === 'transcript') ids.push(item.transcript.id);
  return ids;
}

function readRefs(out: string): Map<string, string> {
  return new Map(readJsonl<{ ref: string; data: string }>(join(out, 'refs.jsonl')).map((e) => [e.ref, e.data]));
}

const SUMMARY_HEAD = /^\[tcompact summary of (\d+) messages?\] \(ref: ([0-9a-f]{16})\)\n\n/;
const TRUNCATION = /^\[CONTEXT REDUCED - emergency truncation: \d+ messages? removed\] \(ref: ([0-9a-f]{16})\)/;
const CONTINUATION = '\n\n---\nThis session continues from the summary above';

/** The summaries the server sent in 200 answers (the fake server's answer is a function of the request). */
const summariesSent = (requests: RecordedRequest[]) => requests.filter((r) => r.fault === 'ok').map((r) => deterministicSummary(r.body));

/** The summary message holding `summary` in `messages`, if any. */
const summaryMessage = (messages: Message[], summary: string) =>
  messages.find((m) => SUMMARY_HEAD.test(textOf(m)) && textOf(m).includes(`\n\n${summary}${CONTINUATION}`));

describe('tcompact run with an LLM (bundled dataset, loopback server)', () => {
  const dir = tempDir('llm-run');
  const out = join(dir, 'out');
  let server: FakeServer;
  let first: Awaited<ReturnType<typeof runCli>>;
  let requestsAfterFirst: number;
  // These runs test the LLM plumbing on the bundled data framed by its last turns, as before the tail became a budget
  // (mask-observations keeping its last 10 results, as its former keepRecent did).
  const framed = join(dir, 'last-turn.json');
  writeFileSync(framed, JSON.stringify({ keepLast: 1, keepMessages: 0, keepResults: 0, options: { 'mask-observations': { keepResults: 10 } } }));
  const args = (baseURL: string) => [
    'run',
    'datasets/bundled',
    '--config',
    framed,
    '--strategy',
    'auto',
    '--out',
    out,
    '--window',
    WINDOW,
    '--model',
    'gpt-4o-mini',
    '--llm',
    baseURL,
    '--rpm',
    String(RPM),
    '--tpm',
    String(TPM),
    '--llm-concurrency',
    '1',
    '--price-in',
    String(PRICE_IN),
    '--price-out',
    String(PRICE_OUT),
    '--quiet',
  ];

  beforeAll(async () => {
    server = await startFakeOpenAI({
      headers: (i) => ({
        'x-ratelimit-limit-requests': String(SERVER_RPM),
        ...(i === 0 ? { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': `${SERVER_RESET_MS}ms` } : {}),
      }),
    });
    first = await runCli(args(server.baseURL), { env });
    requestsAfterFirst = server.requests.length;
  });
  afterAll(async () => server.close());

  it('keeps every input transcript, in input order', async () => {
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const outIds = readJsonl<Transcript>(join(out, 'transcripts.jsonl')).map((t) => t.id);
    expect(outIds).toEqual(await inputIds());
    expect(readReport(out).transcripts).toBe(outIds.length);
  });

  it('sends exactly the transcripts above the threshold to the model, and none falls back', () => {
    const report = readReport(out);
    const summarize = strategy(report, 'summarize');
    // With --model, auto's summarizer is summarize: every transcript either stayed below its threshold (skipped in
    // the worker) or went to the model on the main thread; checkpoint is no step of the pipeline.
    expect(summarize?.runs).toBe(4);
    expect((summarize?.runs ?? 0) + (summarize?.skipped ?? 0)).toBe(report.transcripts);
    expect(strategy(report, 'checkpoint')).toBeUndefined();
    expect(summarize?.details.llmFallbacks).toBe(0);
    expect(summarize?.tokensSaved).toBeGreaterThan(0);
    expect(report.llm.fallbacks).toEqual({ count: 0, examples: [] });
  });

  it("puts each of the server's summaries in place: header, the summary, the continuation note, the originals under its ref", () => {
    const transcripts = readJsonl<Transcript>(join(out, 'transcripts.jsonl'));
    const refs = readRefs(out);
    const summaries = summariesSent(server.requests.slice(0, requestsAfterFirst));
    expect(summaries).toHaveLength(4);
    const inPlace: string[] = [];
    for (const summary of summaries) {
      const holder = transcripts.find((t) => summaryMessage(t.messages, summary));
      if (!holder) continue;
      inPlace.push(holder.id);
      const text = textOf(summaryMessage(holder.messages, summary) as Message);
      const [, count, ref] = SUMMARY_HEAD.exec(text) as RegExpExecArray;
      expect(text).toContain('Continue the work from there.');
      expect((JSON.parse(refs.get(ref) as string) as Message[]).length).toBe(Number(count));
      expect(findViolations(holder.messages)).toEqual([]);
    }
    expect(new Set(inPlace).size).toBe(inPlace.length);
    expect(inPlace).toHaveLength(4);
    expect(inPlace).toContain(OVERSIZED_LAST_TURN);
  });

  it("keeps the summary of a transcript whose last turn alone is over the window: auto's truncate removes nothing it cannot make fit", () => {
    // auto runs truncate after the summarizer while the transcript is still at 98% of the window; it may only cut
    // between the kept head and the last user request, which here is the summary alone, and that would not fit either.
    const transcripts = readJsonl<Transcript>(join(out, 'transcripts.jsonl'));
    const t = transcripts.find((x) => x.id === OVERSIZED_LAST_TURN) as Transcript;
    expect(t.messages.map(textOf).some((x) => TRUNCATION.test(x))).toBe(false);
    const truncate = strategy(readReport(out), 'truncate');
    expect(truncate?.runs).toBe(1);
    expect(truncate?.tokensSaved).toBe(0);
  });

  it('keeps the traffic within --rpm and --tpm in every 60-second window, and waits when the server says none is left', () => {
    const requests = server.requests.slice(0, requestsAfterFirst);
    for (const start of requests) {
      const inWindow = requests.filter((r) => r.at >= start.at && r.at < start.at + 60_000);
      expect(inWindow.length).toBeLessThanOrEqual(SERVER_RPM);
      const tokens = inWindow.reduce((n, r) => n + (r.usage ? r.usage.promptTokens + r.usage.completionTokens : 0), 0);
      expect(tokens).toBeLessThanOrEqual(TPM);
      // A request reserves its prompt and max_tokens: none may need more than the limit alone.
      expect((start.usage?.promptTokens ?? 0) + (start.body.max_tokens ?? 0)).toBeLessThanOrEqual(TPM);
    }
    // --llm-concurrency 1: the second request was acquired after the first answer told the limiter to wait. (Not the
    // report's waitedMs: the second job may come from a later shard, when part of the wait has already passed.)
    expect(requests[1].at - (requests[0].answeredAt as number)).toBeGreaterThanOrEqual(SERVER_RESET_MS - 50);
    const report = readReport(out);
    expect(report.llm.limits).toEqual({ rpm: SERVER_RPM, tpm: TPM });
  });

  it('reports the usage as the server counted it: requests, answers, prompt and completion tokens, cost at --price-in/--price-out', () => {
    const report = readReport(out);
    const requests = server.requests.slice(0, requestsAfterFirst);
    const prompt = requests.reduce((n, r) => n + (r.usage?.promptTokens ?? 0), 0);
    const completion = requests.reduce((n, r) => n + (r.usage?.completionTokens ?? 0), 0);
    expect(requestsAfterFirst).toBeGreaterThan(0);
    expect(report.llm).toMatchObject({
      model: 'gpt-4o-mini',
      requests: requestsAfterFirst,
      answers: requests.filter((r) => r.usage).length,
      cacheHits: 0,
      promptTokens: prompt,
      completionTokens: completion,
      totalTokens: prompt + completion,
      price: { inPerMillion: PRICE_IN, outPerMillion: PRICE_OUT, source: 'config' },
      estimated: false,
      failuresByCode: {},
      jobsFailed: 0,
    });
    expect(report.llm.costUsd).toBeCloseTo((prompt * PRICE_IN + completion * PRICE_OUT) / 1e6, 10);
    expect(strategy(report, 'summarize')?.details).toMatchObject({ llmRequests: requestsAfterFirst, llmPromptTokens: prompt, llmCompletionTokens: completion });
    expect(first.stdout).toContain(`llm: ${requestsAfterFirst} requests, ${prompt} prompt + ${completion} completion tokens, $`);
    expect(first.stdout).toContain(', 0 transcripts fell back\n');
  });

  it('restores the input byte for byte through the extra restore layer the LLM stage adds', async () => {
    const restored = join(dir, 'restored.jsonl');
    expect((await runCli(['restore', out, '--out', restored])).code).toBe(0);
    let expected = '';
    for await (const item of readInputs(['datasets/bundled'], { maxLineBytes: 1 << 26 }))
      if (item.kind === 'transcript') expected += `${JSON.stringify(item.transcript)}\n`;
    expect(readFileSync(restored, 'utf8')).toBe(expected);
  });

  it('answers a re-run from the cache in DIR/llm-cache: no request, the same bytes', async () => {
    const before = sha256(join(out, 'transcripts.jsonl'));
    const again = await runCli(args(server.baseURL), { env });
    expect(again.code).toBe(0);
    expect(server.requests.length).toBe(requestsAfterFirst);
    expect(sha256(join(out, 'transcripts.jsonl'))).toBe(before);
    const report = readReport(out);
    expect(report.llm.cacheHits).toBe(requestsAfterFirst);
    expect(report.llm.requests).toBe(0);
  });

  it('refuses LLM flags without --model', async () => {
    const r = await runCli(['run', 'datasets/bundled', '--out', join(dir, 'x'), '--rpm', '10']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--rpm needs --model NAME');
  });
});

describe('tcompact run with an LLM that fails some jobs', () => {
  const dir = tempDir('llm-run-faults');
  const out = join(dir, 'out');
  const PYDICOM = 'swe-agent/pydicom__pydicom-1458';
  const TEST_REPO = 'swe-agent/swe-agent__test-repo-i1';
  let server: FakeServer;
  let result: Awaited<ReturnType<typeof runCli>>;

  beforeAll(async () => {
    // Routed by what the prompt holds: every request about the pydicom run gets a 500, every one about the test-repo
    // run a 200 that is not a chat completion.
    server = await startFakeOpenAI({
      script: (r) => {
        const prompt = r.body.messages.map((m) => m.content).join('\n');
        if (prompt.includes('pydicom')) return { kind: 'status', status: 500 };
        if (prompt.includes('missing_colon')) return { kind: 'garbage' };
        return undefined;
      },
    });
    const framed = join(dir, 'last-turn.json');
    writeFileSync(framed, JSON.stringify({ keepLast: 1, keepMessages: 0, keepResults: 0, options: { 'mask-observations': { keepResults: 10 } } }));
    result = await runCli(
      ['run', 'datasets/bundled', '--config', framed, '--out', out, '--window', WINDOW, '--model', 'gpt-4o-mini', '--llm', server.baseURL, '--quiet'],
      { env },
    );
  });
  afterAll(async () => server.close());

  it('still writes every transcript, and exits 0: a model failure is not an input failure', async () => {
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(readJsonl<Transcript>(join(out, 'transcripts.jsonl')).map((t) => t.id)).toEqual(await inputIds());
  });

  it('gives the failed transcripts the deterministic checkpoint and the others the summary', () => {
    const transcripts = readJsonl<Transcript>(join(out, 'transcripts.jsonl'));
    const byId = (id: string) => transcripts.find((t) => t.id === id) as Transcript;
    for (const id of [PYDICOM, TEST_REPO]) {
      const texts = byId(id).messages.map(textOf);
      expect(texts.some((x) => x.startsWith('[tcompact checkpoint of '))).toBe(true);
      expect(texts.some((x) => x.startsWith('[tcompact summary'))).toBe(false);
      expect(findViolations(byId(id).messages)).toEqual([]);
    }
    const summaries = summariesSent(server.requests);
    expect(summaries).toHaveLength(2);
    expect(summaries.filter((s) => transcripts.some((t) => summaryMessage(t.messages, s)))).toHaveLength(2);
  });

  it('records in report.json which transcripts fell back and why, and the failed requests by code', () => {
    const report = readReport(out);
    const md = readFileSync(join(out, 'report.md'), 'utf8');
    expect(md).toContain(`## LLM (`);
    expect(md).toContain('- Transcripts that fell back: 2');
    for (const id of [PYDICOM, TEST_REPO]) expect(md).toMatch(new RegExp(`^\\| ${id} +\\| summarize \\| checkpoint`, 'm'));
    expect(server.requests.filter((r) => r.fault === 'status')).toHaveLength(3);
    expect(server.requests.filter((r) => r.fault === 'garbage')).toHaveLength(3);
    expect(report.llm.failuresByCode).toEqual({ server_error: 3, bad_response: 3 });
    expect(report.llm.requests).toBe(server.requests.length);
    expect(report.llm.fallbacks.count).toBe(2);
    expect(report.llm.fallbacks.examples).toEqual([
      { id: PYDICOM, strategy: 'summarize', applied: ['checkpoint'], reason: expect.stringMatching(/^server_error: 500 /) },
      {
        id: TEST_REPO,
        strategy: 'summarize',
        applied: ['checkpoint'],
        reason: expect.stringMatching(/^every answer was rejected \(3\); last: bad response: /),
      },
    ]);
    const summarize = strategy(report, 'summarize');
    expect(summarize?.runs).toBe(4);
    expect(summarize?.details.llmFallbacks).toBe(2);
    expect(result.stdout).toContain(', 2 transcripts fell back\n');
  });
});

describe('tcompact run with async steps chosen by name', () => {
  const dir = tempDir('llm-run-steps');

  it('refuses summarize without a model: E_CONFIG, exit 2, before writing anything', async () => {
    const r = await runCli(['run', 'datasets/bundled/openhands', '--strategy', 'summarize', '--out', join(dir, 'no-model')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('strategy "summarize" needs a model');
  });

  it('runs classify-tangents as an ordinary step of auto with --remove-tangents: every transcript, in step order', async () => {
    const server = await startFakeOpenAI({ tangents: (turns) => (turns >= 3 ? [{ turn: 2, reason: 'an aside' }] : []) });
    try {
      const out = join(dir, 'tangents');
      const r = await runCli(
        [
          'run',
          'datasets/bundled/openhands',
          '--out',
          out,
          '--model',
          'gpt-4o-mini',
          '--llm',
          server.baseURL,
          '--remove-tangents',
          '--quiet',
          '--workers',
          '1',
        ],
        { env },
      );
      expect(r.code).toBe(0);
      const report = readReport(out);
      const tangents = strategy(report, 'classify-tangents');
      expect(tangents?.runs).toBe(report.transcripts);
      const lines = readJsonl<{ steps: { strategy: string }[] }>(join(out, 'transcripts.jsonl'));
      expect(lines).toHaveLength(report.transcripts);
      const names = report.strategies.map((s) => s.name);
      // The async steps come after the mechanical ones and before truncate, as auto lists them.
      expect(names.indexOf('classify-tangents')).toBeGreaterThan(names.indexOf('prune-tools'));
      expect(names.indexOf('summarize')).toBeGreaterThan(names.indexOf('classify-tangents'));
      expect(names.indexOf('truncate')).toBeGreaterThan(names.indexOf('summarize'));
    } finally {
      await server.close();
    }
  });
});
