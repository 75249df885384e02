import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LlmRunUsage } from '../../src/llm/session.js';
import type { Message } from '../../src/model/message.js';
import type { Transcript } from '../../src/model/transcript.js';
import { findViolations } from '../../src/model/validity.js';
import { SIDE_STORE_HEADER, SIDE_STORE_VERSION, SideStore, parseRefLine } from '../../src/refs/ref-file.js';
import { type ChatBody, type FakeServer, type RecordedRequest, deterministicSummary, startFakeOpenAI } from '../llm/fake-openai-server.js';
import { runMain } from '../helpers/cli-in-process.js';
import { readJsonl, realArchiveLines, sha256, tempDir } from './helpers.js';

/**
 * `tcompact run --model --llm URL` against a loopback Chat Completions server, on the bundled real transcripts of over
 * 40,000 characters, on the default tail: the summarizer step of `auto` goes to the model on the main thread for
 * transcripts above its threshold (a 15k window makes 3 of the 6 qualify, one request each), every transcript is still
 * in the output, the summaries are in place, the server saw traffic within the limits, report.json has the usage, and
 * the answer cache makes a re-run free. A second server fails two of the three for good: those transcripts fall back to
 * checkpoint and report.json says which and why.
 */
const env = { OPENAI_API_KEY: 'test-key' };
const WINDOW = '15000';
const MIN_LINE_CHARS = 40_000;
const RPM = 600;
const TPM = 200_000;
/** What the server announces: the run's rpm must end at this tighter figure. */
const SERVER_RPM = 500;
/** The first answer says no request is left for 1 s: the next request may not reach the server before that. */
const SERVER_RESET_MS = 1000;
const PRICE_IN = 1;
const PRICE_OUT = 2;
/** The transcripts that go to the model, in input order: two Claude Code sessions and a tau-bench airline run. */
const SPOTTER = 'ae4a77f8-aedd-4bc1-888f-c94edc91af04';
const BEADS = '491e126e-1e71-469c-ade2-fcc8af567c74';
const AIRLINE = 'gpt-4o-airline#task-2-trial-1';

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

/** The canonical archive the runs read: the long bundled transcripts. */
async function writeLongArchive(path: string): Promise<string[]> {
  const lines = (await realArchiveLines()).filter((l) => l.length > MIN_LINE_CHARS);
  writeFileSync(path, lines.map((l) => `${l}\n`).join(''));
  return lines.map((l) => (JSON.parse(l) as Transcript).id);
}

function readRefs(out: string): SideStore {
  const [header, ...lines] = readFileSync(join(out, 'refs.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  expect(header).toBe(SIDE_STORE_HEADER.trimEnd());
  const store = new SideStore(SIDE_STORE_VERSION);
  for (const line of lines) store.add(parseRefLine(line));
  return store;
}

const SUMMARY_HEAD = /^\[tcompact summary of (\d+) messages?\] \(ref: ([0-9a-f]{16})\)\n\n/;
const TRUNCATION = /^\[CONTEXT REDUCED - emergency truncation: \d+ messages? removed\] \(ref: ([0-9a-f]{16})\)/;
const CONTINUATION = '\n\n---\nThis session continues from the summary above';

/** Below the model's summary, the facts of the checkpoint's lists it leaves out (summarize's skeleton, on by default). */
const KEPT_FROM_CHECKPOINT = '\n\n## From the checkpoint (facts the summary above leaves out)\n';

/** The requests the server answered with a summary (its answer is a function of the request: `deterministicSummary`). */
const summariesSent = (requests: RecordedRequest[]) => requests.filter((r) => r.fault === 'ok').map((r) => r.body);

/** The lines of the checkpoint's lists a summary request carried (none when the span had nothing to list). */
function listedLines(request: ChatBody): Set<string> {
  const user = request.messages.find((m) => m.role === 'user')?.content ?? '';
  const from = user.indexOf('<checkpoint>\n');
  return from < 0 ? new Set() : new Set(user.slice(from + '<checkpoint>\n'.length, user.indexOf('\n</checkpoint>')).split('\n'));
}

/**
 * The summary message `request` was answered for, in `messages`, if any: the header, the server's summary, then only
 * lines of the lists that request carried, which the summary does not hold verbatim, and the continuation note.
 */
function summaryMessage(messages: Message[], request: ChatBody): Message | undefined {
  const summary = `\n\n${deterministicSummary(request)}`;
  const listed = listedLines(request);
  return messages.find((m) => {
    const text = textOf(m);
    const at = text.indexOf(summary);
    if (!SUMMARY_HEAD.test(text) || at < 0) return false;
    let rest = text.slice(at + summary.length);
    if (rest.startsWith(KEPT_FROM_CHECKPOINT)) {
      const end = rest.indexOf(CONTINUATION);
      const added = rest.slice(KEPT_FROM_CHECKPOINT.length, end).split('\n');
      if (end < 0 || !added.every((line) => listed.has(line) && !summary.includes(line))) return false;
      rest = rest.slice(end);
    }
    return rest.startsWith(CONTINUATION);
  });
}

describe('tcompact run with an LLM (bundled dataset, loopback server)', () => {
  const dir = tempDir('llm-run');
  const out = join(dir, 'out');
  let server: FakeServer;
  const archive = join(dir, 'long.jsonl');
  let ids: string[];
  let first: Awaited<ReturnType<typeof runMain>>;
  let requestsAfterFirst: number;
  const args = (baseURL: string) => [
    'run',
    archive,
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
    ids = await writeLongArchive(archive);
    // In this process (the CLI's own main): the built CLI runs with a model in batch-run.test.ts, where it is killed.
    first = await runMain(args(server.baseURL), { env });
    requestsAfterFirst = server.requests.length;
  });
  afterAll(async () => server.close());

  it('keeps every input transcript, in input order', async () => {
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const outIds = readJsonl<Transcript>(join(out, 'transcripts.jsonl')).map((t) => t.id);
    expect(outIds).toEqual(ids);
    expect(readReport(out).transcripts).toBe(outIds.length);
  });

  it('sends exactly the transcripts above the threshold to the model, and none falls back', () => {
    const report = readReport(out);
    const summarize = strategy(report, 'summarize');
    // With --model, auto's summarizer is summarize: every transcript either stayed below its threshold (skipped in
    // the worker) or went to the model on the main thread; checkpoint is no step of the pipeline. The summarizer's
    // second place in auto, after truncate, runs only where a truncation marker is, and none was truncated here.
    expect(summarize?.runs).toBe(5);
    expect((summarize?.runs ?? 0) + (summarize?.skipped ?? 0)).toBe(2 * report.transcripts);
    expect(strategy(report, 'truncate')?.runs).toBe(0);
    expect(requestsAfterFirst).toBe(3);
    expect(strategy(report, 'checkpoint')).toBeUndefined();
    expect(summarize?.details.llmFallbacks).toBe(0);
    expect(summarize?.tokensSaved).toBeGreaterThan(0);
    expect(report.llm.fallbacks).toEqual({ count: 0, examples: [] });
  });

  it("puts each of the server's summaries in place: header, the summary, the continuation note, the originals under its ref", () => {
    const transcripts = readJsonl<Transcript>(join(out, 'transcripts.jsonl'));
    const refs = readRefs(out);
    const summaries = summariesSent(server.requests.slice(0, requestsAfterFirst));
    expect(summaries).toHaveLength(3);
    const inPlace: string[] = [];
    for (const summary of summaries) {
      const holder = transcripts.find((t) => summaryMessage(t.messages, summary));
      if (!holder) continue;
      inPlace.push(holder.id);
      const text = textOf(summaryMessage(holder.messages, summary) as Message);
      // The spotter session's span runs commands and touches files: its request carried the checkpoint's lists, and
      // the fake summary (paths only, 8 at most) leaves some of them out, which the message adds below it.
      if (holder.id === SPOTTER) {
        expect(listedLines(summary).size).toBeGreaterThan(0);
        expect(text).toContain(KEPT_FROM_CHECKPOINT);
      }
      const [, count, ref] = SUMMARY_HEAD.exec(text) as RegExpExecArray;
      expect(text).toContain('Continue the work from there.');
      expect((JSON.parse(refs.get(ref) as string) as Message[]).length).toBe(Number(count));
      expect(findViolations(holder.messages)).toEqual([]);
    }
    expect(inPlace.sort()).toEqual([SPOTTER, BEADS, AIRLINE].sort());
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
    expect((await runMain(['restore', out, '--out', restored])).code).toBe(0);
    expect(readFileSync(restored, 'utf8')).toBe(readFileSync(archive, 'utf8'));
  });

  it('answers a re-run from the cache in DIR/llm-cache: no request, the same bytes', async () => {
    const before = sha256(join(out, 'transcripts.jsonl'));
    const again = await runMain(args(server.baseURL), { env });
    expect(again.code).toBe(0);
    expect(server.requests.length).toBe(requestsAfterFirst);
    expect(sha256(join(out, 'transcripts.jsonl'))).toBe(before);
    const report = readReport(out);
    expect(report.llm.cacheHits).toBe(requestsAfterFirst);
    expect(report.llm.requests).toBe(0);
  });

  it('refuses LLM flags without --model', async () => {
    const r = await runMain(['run', archive, '--out', join(dir, 'x'), '--rpm', '10']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--rpm needs --model NAME');
  });
});

describe('tcompact run with an LLM, the tail set to the last turn', () => {
  // The long Claude Code session's last turn alone is over a 20k window: a tail of that whole turn (a setting a user
  // may give) leaves auto's truncate, after the summary, nothing it could cut to make it fit.
  const dir = tempDir('llm-run-last-turn');
  const out = join(dir, 'out');
  let server: FakeServer;
  let result: Awaited<ReturnType<typeof runMain>>;

  beforeAll(async () => {
    server = await startFakeOpenAI();
    const archive = join(dir, 'spotter.jsonl');
    writeFileSync(archive, `${(await realArchiveLines()).find((l) => (JSON.parse(l) as Transcript).id === SPOTTER)}\n`);
    const lastTurn = ['--keep-last', '1', '--keep-messages', '0', '--keep-results', '0'];
    result = await runMain(['run', archive, ...lastTurn, '--out', out, '--window', '20000', '--model', 'gpt-4o-mini', '--llm', server.baseURL, '--quiet'], {
      env,
    });
  });
  afterAll(async () => server.close());

  it("keeps the summary of a transcript whose last turn alone is over the window: auto's truncate removes nothing it cannot make fit", () => {
    // auto runs truncate after the summarizer while the transcript is still at 98% of the window; it may only cut
    // between the kept head and the last user request, which here is the summary alone, and that would not fit either.
    expect(result.code).toBe(0);
    const [t] = readJsonl<Transcript>(join(out, 'transcripts.jsonl'));
    const [summary] = summariesSent(server.requests);
    expect(summaryMessage(t.messages, summary)).toBeDefined();
    expect(t.messages.map(textOf).some((x) => TRUNCATION.test(x))).toBe(false);
    const truncate = strategy(readReport(out), 'truncate');
    expect(truncate?.runs).toBe(1);
    expect(truncate?.tokensSaved).toBe(0);
  });
});

describe('tcompact run with an LLM that fails some jobs', () => {
  const dir = tempDir('llm-run-faults');
  const out = join(dir, 'out');
  const archive = join(dir, 'long.jsonl');
  let ids: string[];
  let server: FakeServer;
  let result: Awaited<ReturnType<typeof runMain>>;

  beforeAll(async () => {
    // Routed by what the prompt holds (each names the length of its session): every request about the long Claude
    // Code session gets a 500, every one about the beads session a 200 that is not a chat completion; the airline run
    // is answered.
    server = await startFakeOpenAI({
      script: (r) => {
        const prompt = r.body.messages.map((m) => m.content).join('\n');
        if (prompt.includes(' of a session of 466 messages.')) return { kind: 'status', status: 500 };
        if (prompt.includes(' of a session of 32 messages.')) return { kind: 'garbage' };
        return undefined;
      },
    });
    ids = await writeLongArchive(archive);
    result = await runMain(['run', archive, '--out', out, '--window', WINDOW, '--model', 'gpt-4o-mini', '--llm', server.baseURL, '--quiet'], { env });
  });
  afterAll(async () => server.close());

  it('still writes every transcript, and exits 0: a model failure is not an input failure', async () => {
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(readJsonl<Transcript>(join(out, 'transcripts.jsonl')).map((t) => t.id)).toEqual(ids);
  });

  it('gives the failed transcripts the deterministic checkpoint and the others the summary', () => {
    const transcripts = readJsonl<Transcript>(join(out, 'transcripts.jsonl'));
    const byId = (id: string) => transcripts.find((t) => t.id === id) as Transcript;
    for (const id of [SPOTTER, BEADS]) {
      const texts = byId(id).messages.map(textOf);
      expect(texts.some((x) => x.startsWith('[tcompact checkpoint of '))).toBe(true);
      expect(texts.some((x) => x.startsWith('[tcompact summary'))).toBe(false);
      expect(findViolations(byId(id).messages)).toEqual([]);
    }
    const summaries = summariesSent(server.requests);
    expect(summaries).toHaveLength(1);
    expect(summaryMessage(byId(AIRLINE).messages, summaries[0])).toBeDefined();
  });

  it('records in report.json which transcripts fell back and why, and the failed requests by code', () => {
    const report = readReport(out);
    const md = readFileSync(join(out, 'report.md'), 'utf8');
    expect(md).toContain(`## LLM (`);
    expect(md).toContain('- Transcripts that fell back: 2');
    for (const id of [BEADS, SPOTTER]) expect(md).toMatch(new RegExp(`^\\| ${id} +\\| summarize \\| checkpoint`, 'm'));
    expect(server.requests.filter((r) => r.fault === 'status')).toHaveLength(3);
    expect(server.requests.filter((r) => r.fault === 'garbage')).toHaveLength(3);
    expect(report.llm.failuresByCode).toEqual({ server_error: 3, bad_response: 3 });
    expect(report.llm.requests).toBe(server.requests.length);
    expect(report.llm.fallbacks.count).toBe(2);
    expect(report.llm.fallbacks.examples).toEqual([
      {
        id: BEADS,
        strategy: 'summarize',
        applied: ['checkpoint'],
        reason: expect.stringMatching(/^every answer was rejected \(3\); last: bad response: /),
      },
      { id: SPOTTER, strategy: 'summarize', applied: ['checkpoint'], reason: expect.stringMatching(/^server_error: 500 /) },
    ]);
    const summarize = strategy(report, 'summarize');
    expect(summarize?.runs).toBe(5);
    expect(summarize?.details.llmFallbacks).toBe(2);
    expect(result.stdout).toContain(', 2 transcripts fell back\n');
  });
});

describe('tcompact run with async steps chosen by name', () => {
  const dir = tempDir('llm-run-steps');

  it('refuses summarize without a model: E_CONFIG, exit 2, before writing anything', async () => {
    const r = await runMain(['run', 'datasets/bundled/openhands', '--strategy', 'summarize', '--out', join(dir, 'no-model')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('strategy "summarize" needs a model');
  });

  it('runs classify-tangents as an ordinary step of auto with --remove-tangents: every transcript, in step order', async () => {
    const server = await startFakeOpenAI({ tangents: (turns) => (turns >= 3 ? [{ turn: 2, reason: 'an aside' }] : []) });
    try {
      const out = join(dir, 'tangents');
      const r = await runMain(
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
