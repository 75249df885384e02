import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeServer, startFakeOpenAI } from '../../../llm/fake-openai-server.js';
import { runMain } from '../../../helpers/cli-in-process.js';
import { cliFaults, realArchiveLines, sha256, tempDir } from '../../helpers.js';
import { WorkerProcess, killLeftoverWorkers, workersConnected } from './processes.js';
import { RedisServer, redisServerAvailable } from '../../../../bench/lib/redis-server.js';

/**
 * A distributed run with LLM work, on the default tail: two worker processes compact, the coordinator asks the model
 * for what they handed on, and the bytes are those of a local run. (That --rpm holds in every 60-second window is the
 * limiter's own test, on a fake clock.) The input is the bundled transcripts of over 30,000 characters, the only ones a
 * 20k window can send to the model under the default tail, but the longest, in 64 KB shards, so both workers get some. The workers are
 * processes of the built CLI; the local run and the coordinator take no fault and are not killed, so they run in this
 * process (the CLI's own main).
 */
const dir = tempDir('distributed-llm');
/** Leaves out the long Claude Code session (568,000 characters, about as long as the others together): they ask the model too. */
const MAX_LINE_CHARS = 100_000;
const SLOW = cliFaults({ shardDelayMs: 120 });
const archive = join(dir, 'long.jsonl');
const env = { OPENAI_API_KEY: 'sk-test-distributed' };
const llmArgs = (input: string, out: string, baseURL: string, extra: string[]): string[] => [
  'run',
  input,
  '--out',
  out,
  '--strategy',
  'auto',
  '--window',
  '20000',
  '--model',
  'gpt-4o-mini',
  '--llm',
  baseURL,
  '--llm-concurrency',
  '2',
  '--shard-bytes',
  String(64 * 1024),
  '--quiet',
  ...extra,
];

describe.skipIf(!redisServerAvailable())('distributed run with LLM work', () => {
  let redis: RedisServer;
  let server: FakeServer;

  beforeAll(async () => {
    redis = await RedisServer.start('pw-llm-4b1d');
    server = await startFakeOpenAI();
    const long = (await realArchiveLines()).filter((l) => l.length > 30_000 && l.length < MAX_LINE_CHARS);
    writeFileSync(archive, long.map((l) => `${l}\n`).join(''));
  });

  afterAll(async () => {
    await killLeftoverWorkers();
    await server?.close();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('asks the model from the coordinator and writes the bytes of a local run', async () => {
    const localOut = join(dir, 'local');
    const out = join(dir, 'queue');
    expect((await runMain(llmArgs(archive, localOut, server.baseURL, ['--workers', '2']), { env })).code).toBe(0);
    const before = server.requests.length;
    // Both connected before the run, and each shard held a little, so a slow start cannot leave one of them without work.
    const workers = [new WorkerProcess(redis.url, SLOW), new WorkerProcess(redis.url, SLOW)];
    await workersConnected(redis.url, 2);
    const localRequests = before;
    expect(localRequests).toBeGreaterThan(0);
    const run = await runMain(llmArgs(archive, out, server.baseURL, ['--workers', '0', '--queue', redis.url]), { env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    // Each output directory has its own answer cache: the distributed run asks the same questions again.
    expect(server.requests.length - before).toBe(localRequests);
    for (const name of ['transcripts.jsonl', 'errors.jsonl', 'refs.jsonl']) expect(sha256(join(out, name)), name).toBe(sha256(join(localOut, name)));
    expect(JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')).distributed.workersSeen).toBe(2);
    expect(await Promise.all(workers.map((w) => w.stop()))).toEqual([0, 0]);
  });
});
