import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LlmRunUsage } from '../../src/llm/session.js';
import { type BatchFault, type FakeServer, type FakeServerOptions, startFakeOpenAI } from '../llm/fake-openai-server.js';
import { runMain } from '../helpers/cli-in-process.js';
import { type CliResult, realArchiveLines, runCli, sha256, tempDir } from './helpers.js';

/**
 * `tcompact run --batch` against the loopback server's Batch API, on two bundled real transcripts that go to the
 * summarizer (any other would only slow each pass): the requests go through batches, the output is byte for byte that of the online
 * run, the faults of the API (failed lines, expired and failed batches, 5xx while polling) end online or in the
 * fallback with their reason, and a run killed with -9 while waiting resumes without a second batch.
 */
const env = { OPENAI_API_KEY: 'test-key' };
const PRICE_IN = 1;
const PRICE_OUT = 2;
/**
 * A Claude Code session of 32 messages and a tau-bench airline run: under the default tail, a 15k window sends each to
 * the summarizer with one request (llm-run.test.ts holds that count for the same window). The long Claude Code session
 * would send one too, at eight times their length for every run here.
 */
const IDS = ['491e126e-1e71-469c-ade2-fcc8af567c74', 'gpt-4o-airline#task-2-trial-1'];
const WINDOW = '15000';

interface Report {
  transcripts: number;
  llm: LlmRunUsage;
}

const readReport = (out: string) => JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
const batchOf = (out: string) => readReport(out).llm.batch as NonNullable<LlmRunUsage['batch']>;
const linesOf = (server: FakeServer) => server.batches.reduce((n, b) => n + b.lines.length, 0);

/** The canonical archive the runs read (written once, before the tests). */
let archive = '';

function args(baseURL: string, out: string, extra: string[] = []): string[] {
  return [
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
    '--price-in',
    String(PRICE_IN),
    '--price-out',
    String(PRICE_OUT),
    '--workers',
    '1',
    '--quiet',
    ...extra,
  ];
}

const batchArgs = (baseURL: string, out: string, extra: string[] = []) => args(baseURL, out, ['--batch', '--batch-poll-seconds', '0.05', ...extra]);

// Each test runs the built CLI two or three times; on a loaded 2-core machine that takes a while.
describe('tcompact run --batch (bundled dataset, loopback Batch API)', { timeout: 300_000 }, () => {
  const dir = tempDir('batch-run');
  const onlineOut = join(dir, 'online');
  let onlineRequests: number;
  const servers: FakeServer[] = [];
  const serve = async (options: FakeServerOptions = {}) => {
    const server = await startFakeOpenAI(options);
    servers.push(server);
    return server;
  };

  beforeAll(async () => {
    archive = join(dir, 'archive.jsonl');
    const lines = (await realArchiveLines()).filter((l) => IDS.includes((JSON.parse(l) as { id: string }).id));
    expect(lines).toHaveLength(IDS.length);
    writeFileSync(archive, lines.map((l) => `${l}\n`).join(''));
    const server = await startFakeOpenAI();
    const online = await runMain(args(server.baseURL, onlineOut), { env });
    onlineRequests = server.requests.length;
    await server.close();
    expect(online.code).toBe(0);
  });
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close();
  });

  const expectSameBytes = (out: string) => {
    for (const name of ['transcripts.jsonl', 'refs.jsonl', 'errors.jsonl']) expect(sha256(join(out, name)), name).toBe(sha256(join(onlineOut, name)));
  };

  it('sends every request through one batch and writes the bytes of the online run, at half the list price', async () => {
    const server = await serve();
    const out = join(dir, 'plain');
    const run = await runMain(batchArgs(server.baseURL, out), { env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(onlineRequests).toBeGreaterThanOrEqual(2);
    expect(server.requests).toHaveLength(0);
    expect(server.batches).toHaveLength(1);
    const [batch] = server.batches;
    expect(batch.lines).toHaveLength(onlineRequests);
    expect(batch.endpoint).toBe('/v1/chat/completions');
    expect(batch.completionWindow).toBe('24h');
    expect(new Set(batch.lines.map((l) => l.custom_id)).size).toBe(onlineRequests);
    expect(batch.lines.every((l) => l.method === 'POST' && l.url === '/v1/chat/completions' && /^[0-9a-f]{64}$/.test(l.custom_id))).toBe(true);
    // In key order, whatever order the workers' shards finished in: the batch files do not depend on the worker count.
    const keys = batch.lines.map((l) => l.custom_id);
    expect(keys).toEqual([...keys].sort());
    expect(server.files.get(batch.inputFileId)?.purpose).toBe('batch');
    // validating -> in_progress -> finalizing -> completed: one step per poll.
    expect(batch.polls).toBe(3);
    expectSameBytes(out);

    const report = readReport(out);
    const online = readReport(onlineOut);
    expect(report.llm.batch).toMatchObject({ batches: 1, requests: onlineRequests, completed: onlineRequests, failed: 0, expired: 0, retriedOnline: 0 });
    expect(report.llm.batch?.list).toEqual([{ id: batch.id, status: 'completed', requests: onlineRequests, completed: onlineRequests, failed: 0 }]);
    expect(report.llm.requests).toBe(0);
    expect(report.llm.promptTokens).toBe(online.llm.promptTokens);
    expect(report.llm.completionTokens).toBe(online.llm.completionTokens);
    expect(report.llm.fallbacks.count).toBe(0);
    expect(report.llm.price?.batch).toEqual({ inPerMillion: PRICE_IN / 2, outPerMillion: PRICE_OUT / 2 });
    expect(report.llm.costUsd).toBeCloseTo((online.llm.costUsd as number) / 2, 12);
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toContain(
      `- Batch ${batch.id}: completed, ${onlineRequests} requests, ${onlineRequests} completed, 0 failed`,
    );
    expect(run.stdout).toContain(`batch: 1 batches, ${onlineRequests} requests: ${onlineRequests} answered`);
  });

  // The split by bytes also carries the batch prices: they change no batch and no output byte, and a run of their own
  // would cost as much as any other in this file.
  it('splits the requests into several batches above --batch-max-requests and --batch-max-bytes, and prices batch tokens at --price-batch-in / --price-batch-out when given', async () => {
    const byCount = await serve();
    const countOut = join(dir, 'split-count');
    expect((await runMain(batchArgs(byCount.baseURL, countOut, ['--batch-max-requests', '1']), { env })).code).toBe(0);
    expect(byCount.batches).toHaveLength(onlineRequests);
    expect(byCount.batches.every((b) => b.lines.length === 1)).toBe(true);
    expect(linesOf(byCount)).toBe(onlineRequests);
    expectSameBytes(countOut);
    expect(batchOf(countOut).batches).toBe(byCount.batches.length);

    const bySize = await serve();
    const sizeOut = join(dir, 'split-bytes');
    // The largest line alone fits; two of the largest do not.
    const largest = Math.max(...byCount.batches.flatMap((b) => b.lines.map((l) => Buffer.byteLength(`${JSON.stringify(l)}\n`))));
    const priced = ['--price-batch-in', '0.25', '--price-batch-out', '0.75'];
    expect((await runMain(batchArgs(bySize.baseURL, sizeOut, ['--batch-max-bytes', String(largest + 1), ...priced]), { env })).code).toBe(0);
    expect(bySize.batches.length).toBeGreaterThan(1);
    for (const b of bySize.batches) expect((bySize.files.get(b.inputFileId)?.content.length ?? Infinity) <= largest + 1).toBe(true);
    expect(linesOf(bySize)).toBe(onlineRequests);
    expectSameBytes(sizeOut);
    const u = readReport(sizeOut).llm;
    expect(u.price?.batch).toEqual({ inPerMillion: 0.25, outPerMillion: 0.75 });
    expect(u.costUsd).toBeCloseTo((u.promptTokens * 0.25 + u.completionTokens * 0.75) / 1e6, 12);
  });

  it('asks a line the batch failed on (5xx) once more online, lets a refused one (400) fall back, and reports each with its reason', async () => {
    const server = await serve({
      batchLineScript: ({ line }) =>
        line === 0 ? { kind: 'status', status: 500 } : line === 1 ? { kind: 'status', status: 400, code: 'invalid_value' } : undefined,
    });
    const out = join(dir, 'failed-lines');
    const run = await runMain(batchArgs(server.baseURL, out), { env });
    expect(run.code).toBe(0);
    const [batch] = server.batches;
    // Only the 5xx line went online, with the very body the batch held.
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0].body).toEqual(batch.lines[0].body);
    const b = batchOf(out);
    expect(b).toMatchObject({ requests: onlineRequests, completed: onlineRequests - 2, failed: 2, expired: 0, retriedOnline: 1 });
    expect(b.unanswered.count).toBe(2);
    const byId = new Map(b.unanswered.examples.map((u) => [u.customId, u]));
    expect(byId.get(batch.lines[0].custom_id)).toMatchObject({ then: 'online', reason: expect.stringContaining('server_error') });
    expect(byId.get(batch.lines[1].custom_id)).toMatchObject({ then: 'fallback', reason: expect.stringContaining('bad_request') });
    const fallbacks = readReport(out).llm.fallbacks;
    expect(fallbacks.count).toBe(1);
    expect(fallbacks.examples[0].reason).toContain('bad_request');
    expect(existsSync(join(out, 'batches', `${batch.id}.error.jsonl`))).toBe(true);
  });

  it('asks online what an expired batch left unanswered, and keeps its partial output', async () => {
    const answered = 1;
    const server = await serve({ batchFaults: [{ kind: 'expired', answered }] });
    const out = join(dir, 'expired');
    expect((await runMain(batchArgs(server.baseURL, out), { env })).code).toBe(0);
    expect(server.batches[0].status).toBe('expired');
    expect(server.requests).toHaveLength(onlineRequests - answered);
    expect(batchOf(out)).toMatchObject({ completed: answered, expired: onlineRequests - answered, retriedOnline: onlineRequests - answered });
    expect(batchOf(out).unanswered.examples.every((u) => u.reason.includes('expired'))).toBe(true);
    expectSameBytes(out);
  });

  it('asks every request online when the batch fails, and survives 5xx answers while polling', async () => {
    const faults: BatchFault[] = [{ kind: 'failed', message: 'injected validation failure' }];
    const failed = await serve({ batchFaults: faults });
    const failedOut = join(dir, 'batch-failed');
    expect((await runMain(batchArgs(failed.baseURL, failedOut), { env })).code).toBe(0);
    expect(failed.requests).toHaveLength(onlineRequests);
    expect(batchOf(failedOut)).toMatchObject({ failed: onlineRequests, retriedOnline: onlineRequests });
    expect(batchOf(failedOut).unanswered.examples[0].reason).toContain('injected validation failure');
    expectSameBytes(failedOut);

    const flaky = await serve({ batchFaults: [{ kind: 'poll_errors', count: 2, status: 503 }] });
    const flakyOut = join(dir, 'poll-errors');
    expect((await runMain(batchArgs(flaky.baseURL, flakyOut), { env })).code).toBe(0);
    expect(flaky.batches[0].polls).toBe(2 + 3);
    expect(flaky.requests).toHaveLength(0);
    expectSameBytes(flakyOut);
  });

  /** Starts a batch run and kills it with -9 as soon as the server has created its batch. */
  async function killedAfterBatchCreated(out: string, server: { baseURL: string }, onCreated: { kill?: () => void }): Promise<CliResult> {
    return runCli(batchArgs(server.baseURL, out, ['--batch-poll-seconds', '1']), {
      env,
      onSpawn: (_pid, kill) => {
        onCreated.kill = () => kill('SIGKILL');
      },
    });
  }

  it('a run killed with -9 while waiting resumes with --batch --resume only: no second batch, no online request, the same bytes', async () => {
    const hook: { kill?: () => void } = {};
    const server = await serve({ onBatchCreated: () => hook.kill?.() });
    const out = join(dir, 'killed');
    const killed = await killedAfterBatchCreated(out, server, hook);
    expect(killed.signal).toBe('SIGKILL');
    expect(server.batches).toHaveLength(1);
    expect(existsSync(join(out, 'report.json'))).toBe(false);
    // Without --batch, the outstanding batch would be asked again online: refused before any request.
    const online = await runMain(args(server.baseURL, out, ['--resume']), { env });
    expect(online.code).toBe(2);
    expect(online.stderr).toContain('outstanding: resume with --batch');
    expect(server.requests).toHaveLength(0);
    const resumed = await runMain(batchArgs(server.baseURL, out, ['--resume']), { env });
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(server.batches).toHaveLength(1);
    expect(server.requests).toHaveLength(0);
    expect(server.batches[0].status).toBe('completed');
    expectSameBytes(out);
    expect(batchOf(out)).toMatchObject({ batches: 1, requests: onlineRequests, completed: onlineRequests, retriedOnline: 0 });
  });

  it('--batch-cancel on resume cancels the outstanding batch and finishes with the online queue', async () => {
    const hook: { kill?: () => void } = {};
    const server = await serve({ onBatchCreated: () => hook.kill?.() });
    const out = join(dir, 'cancelled');
    expect((await killedAfterBatchCreated(out, server, hook)).signal).toBe('SIGKILL');
    const resumed = await runMain(batchArgs(server.baseURL, out, ['--resume', '--batch-cancel']), { env });
    expect(resumed.code).toBe(0);
    expect(server.batches).toHaveLength(1);
    expect(server.batches[0].status).toBe('cancelled');
    expect(server.requests).toHaveLength(onlineRequests);
    expect(batchOf(out)).toMatchObject({ expired: onlineRequests, retriedOnline: onlineRequests });
    expectSameBytes(out);
  });
});
