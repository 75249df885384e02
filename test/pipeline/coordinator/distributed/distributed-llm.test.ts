import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeServer, startFakeOpenAI } from '../../../llm/fake-openai-server.js';
import { BUNDLED, runCli, sha256, tempDir } from '../../helpers.js';
import { WorkerProcess, killLeftoverWorkers } from './processes.js';
import { RedisServer, redisServerAvailable } from '../../../../bench/lib/redis-server.js';

/**
 * A distributed run with LLM work: two worker processes compact, the model is asked under one --rpm budget, and no
 * 60-second window of the server's log goes over it. The bundled dataset needs 4 summaries, so --rpm 2 must make the
 * run wait about a minute.
 */
const RPM = 2;
const dir = tempDir('distributed-llm');
const env = { OPENAI_API_KEY: 'sk-test-distributed' };
// The bundled data framed by its last turns, as before the tail became a budget (mask-observations keeps 10 results).
const FRAMED = join(dir, 'last-turn.json');
writeFileSync(FRAMED, JSON.stringify({ keepLast: 1, keepMessages: 0, keepResults: 0, options: { 'mask-observations': { keepResults: 10 } } }));
const llmArgs = (input: string, out: string, baseURL: string, extra: string[]): string[] => [
  'run',
  input,
  '--config',
  FRAMED,
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
  '--quiet',
  ...extra,
];

describe.skipIf(!redisServerAvailable())('distributed run with LLM work under --rpm', () => {
  let redis: RedisServer;
  let server: FakeServer;

  beforeAll(async () => {
    redis = await RedisServer.start('pw-llm-4b1d');
    server = await startFakeOpenAI();
  });

  afterAll(async () => {
    await killLeftoverWorkers();
    await server?.close();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every 60-second window within --rpm and writes the bytes of a local run', { timeout: 180_000 }, async () => {
    const localOut = join(dir, 'local');
    const out = join(dir, 'queue');
    expect((await runCli(llmArgs(BUNDLED, localOut, server.baseURL, ['--workers', '2']), { env })).code).toBe(0);
    const before = server.requests.length;
    const workers = [new WorkerProcess(redis.url), new WorkerProcess(redis.url)];
    const run = await runCli(llmArgs(BUNDLED, out, server.baseURL, ['--workers', '0', '--queue', redis.url, '--rpm', String(RPM)]), { env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const requests = server.requests.slice(before);
    expect(requests.length).toBeGreaterThan(RPM);
    for (const start of requests) expect(requests.filter((r) => r.at >= start.at && r.at < start.at + 60_000).length).toBeLessThanOrEqual(RPM);
    for (const name of ['transcripts.jsonl', 'errors.jsonl', 'refs.jsonl']) expect(sha256(join(out, name)), name).toBe(sha256(join(localOut, name)));
    expect(JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')).distributed.workersSeen).toBe(2);
    expect(await Promise.all(workers.map((w) => w.stop()))).toEqual([0, 0]);
  });
});
