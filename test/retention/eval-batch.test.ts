import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type ChatBody, type Fault, type FakeServer, startFakeOpenAI } from '../llm/fake-openai-server.js';
import { BUNDLED } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp-dir.js';
import { runMain } from '../helpers/cli-in-process.js';

/** The judge repeats the transcript it was given; summary requests get the server's deterministic summary. */
const answer = (body: ChatBody): Fault | undefined =>
  body.messages[0].content.startsWith("You answer questions about an AI agent's working session")
    ? { kind: 'text', text: /<transcript>\n([\s\S]*)\n<\/transcript>/.exec(body.messages[1].content)?.[1] ?? '' }
    : undefined;

interface EvalJson {
  rows: { name: string; llm?: { requests: number } }[];
  judge: { rows: unknown[]; requests: number; batch?: { batches: number; requests: number; completed: number; retriedOnline: number } };
}

const read = (out: string) => JSON.parse(readFileSync(join(out, 'eval.json'), 'utf8')) as EvalJson;
const withoutLlm = (rows: EvalJson['rows']) => rows.map(({ llm: _llm, ...rest }) => rest);

describe('tcompact eval --batch (loopback Batch API)', { timeout: 300_000 }, () => {
  let server: FakeServer | undefined;
  afterEach(async () => server?.close());

  it('asks the summaries and then the judge through two batches, with the scores of the online eval', async () => {
    const dir = tempDir('eval-batch');
    // Long enough that the default tail (the last 10 messages and results) leaves a middle to summarize.
    const input = join(BUNDLED, 'claude-code', 'subagent.jsonl');
    const args = (baseURL: string, out: string, extra: string[] = []) => [
      'eval',
      input,
      '--out',
      out,
      '--strategy',
      'summarize',
      '--strategy',
      'checkpoint',
      '--model',
      'sum-model',
      '--judge',
      'judge-model',
      '--llm',
      baseURL,
      '--judge-window',
      '64000',
      ...extra,
    ];
    const env = { OPENAI_API_KEY: 'test-key' };
    server = await startFakeOpenAI({ script: (r) => answer(r.body) });
    const online = await runMain(args(server.baseURL, join(dir, 'online')), { env });
    expect(online.code).toBe(0);
    const onlineRequests = server.requests.length;
    await server.close();

    server = await startFakeOpenAI({ batchLineScript: ({ body }) => answer(body) });
    const out = join(dir, 'batch');
    const batched = await runMain(args(server.baseURL, out, ['--batch', '--batch-poll-seconds', '0.05']), { env });
    expect(batched.code).toBe(0);
    expect(server.requests).toHaveLength(0);
    // The summaries first, then the judge's questions about the contexts they compacted.
    expect(server.batches.map((b) => b.lines[0].body.model)).toEqual(['sum-model', 'judge-model']);
    expect(server.batches.reduce((n, b) => n + b.lines.length, 0)).toBe(onlineRequests);
    const a = read(join(dir, 'online'));
    const b = read(out);
    expect(withoutLlm(b.rows)).toEqual(withoutLlm(a.rows));
    expect(b.judge.rows).toEqual(a.judge.rows);
    expect(b.judge.requests).toBe(0);
    expect(b.judge.batch).toMatchObject({ batches: 1, requests: server.batches[1].lines.length, completed: server.batches[1].lines.length, retriedOnline: 0 });
  });
});
