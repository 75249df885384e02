import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { Evaluation } from '../../src/retention/eval-run.js';
import { gatherAndSettle } from '../../src/llm/batch-phase.js';
import { createLlmSession } from '../../src/llm/session.js';
import { JUDGE_QUESTIONS, Judge } from '../../src/retention/judge.js';
import { extractProbes } from '../../src/retention/probes.js';
import { readInputs } from '../../src/formats/read-inputs.js';
import type { Message } from '../../src/model/message.js';
import type { Transcript } from '../../src/model/transcript.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { type ChatBody, type Fault, type FakeServer, type RecordedRequest, startFakeOpenAI } from '../llm/fake-openai-server.js';
import { BUNDLED, CLI } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A model that answers every question by repeating the transcript it was given: it knows exactly what the context holds. */
const echo = (body: ChatBody) => ({ kind: 'text' as const, text: /<transcript>\n([\s\S]*)\n<\/transcript>/.exec(body.messages[1].content)?.[1] ?? '' });

const call = (id: string, name: string, args: Record<string, unknown>) => ({
  id,
  type: 'function' as const,
  function: { name, arguments: JSON.stringify(args) },
});
const session: Message[] = [
  { role: 'user', content: 'Rename the parser module and update every import of it.' },
  { role: 'assistant', content: null, tool_calls: [call('c1', 'Read', { file_path: '/repo/src/parser.ts' })] },
  { role: 'tool', tool_call_id: 'c1', content: 'export function parse() {}' },
  { role: 'assistant', content: null, tool_calls: [call('c2', 'Bash', { command: 'npm run build' })] },
  { role: 'tool', tool_call_id: 'c2', content: 'Exit code 2\nerror TS2307: Cannot find module ./parser', is_error: true },
  { role: 'user', content: 'Also add a changelog entry for the rename.' },
  { role: 'assistant', content: 'Will do.' },
];
const original: Transcript = { id: 's', messages: session };
// A context that kept only the last request: every file, command and error is gone.
const compacted: Transcript = { id: 's', messages: session.slice(5) };

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('Judge (against the loopback OpenAI-compatible server)', () => {
  it('asks one question per dimension and context, and grades the answers against the original probes', async () => {
    server = await startFakeOpenAI({ script: (r) => echo(r.body) });
    const judge = await Judge.create({ model: 'judge-model', baseURL: server.baseURL, apiKey: 'k', contextWindow: 32_000 });
    const probes = extractProbes(original);
    await judge.judge('s', probes, [
      { name: 'original', transcript: original },
      { name: 'last-request-only', transcript: compacted },
    ]);
    const report = judge.report();
    // 4 dimensions have probes (artifact: path and command; decision: the error; recall and continuation: requests).
    expect(server.requests).toHaveLength(8);
    expect(server.requests.every((r) => r.body.model === 'judge-model' && r.body.temperature === 0)).toBe(true);
    // Each context (the prompt before its question) is asked the four questions once; the two contexts' requests may
    // reach the server interleaved.
    const byContext = new Map<string, string[]>();
    for (const r of server.requests) {
      const [context, question] = r.body.messages[1].content.split('Question: ');
      byContext.set(context, [...(byContext.get(context) ?? []), question]);
    }
    expect([...byContext.values()].map((questions) => questions.sort())).toEqual([1, 2].map(() => Object.values(JUDGE_QUESTIONS).sort()));
    const byName = Object.fromEntries(report.rows.map((r) => [r.name, r.byDimension]));
    expect(byName.original).toEqual({
      recall: { questions: 1, failed: 0, probes: 2, retained: 2 },
      artifact: { questions: 1, failed: 0, probes: 2, retained: 2 },
      continuation: { questions: 1, failed: 0, probes: 1, retained: 1 },
      decision: { questions: 1, failed: 0, probes: 1, retained: 1 },
    });
    expect(byName['last-request-only']).toEqual({
      recall: { questions: 1, failed: 0, probes: 2, retained: 1 },
      artifact: { questions: 1, failed: 0, probes: 2, retained: 0 },
      continuation: { questions: 1, failed: 0, probes: 1, retained: 1 },
      decision: { questions: 1, failed: 0, probes: 1, retained: 0 },
    });
    expect(report.requests).toBe(8);
    expect(report.promptTokens).toBeGreaterThan(0);
  });

  it('counts a question that failed for good, or whose context does not fit, without throwing', async () => {
    server = await startFakeOpenAI({
      script: (r) => (r.body.messages[1].content.includes(JUDGE_QUESTIONS.decision) ? { kind: 'status', status: 400 } : echo(r.body)),
    });
    const judge = await Judge.create({ model: 'm', baseURL: server.baseURL, apiKey: 'k', contextWindow: 32_000, maxAttempts: 2 });
    await judge.judge('s', extractProbes(original), [{ name: 'original', transcript: original }]);
    const row = judge.report().rows[0].byDimension;
    expect(row.decision).toEqual({ questions: 1, failed: 1, probes: 0, retained: 0 });
    expect(row.artifact.retained).toBe(2);
    expect(judge.report().failuresByCode).toEqual({ bad_request: 1 });

    // A window too small for even the shortest rendering: no request is sent.
    const tiny = await Judge.create({ model: 'm', baseURL: server.baseURL, apiKey: 'k', contextWindow: 1400, maxTokens: 1000 });
    const before = server.requests.length;
    await tiny.judge('s', extractProbes(original), [{ name: 'original', transcript: original }]);
    expect(server.requests.length).toBe(before);
    expect(tiny.report().failuresByCode).toEqual({ context_too_long: 4 });
  });

  it('judges real compacted transcripts next to the deterministic scores, which it never changes', async () => {
    server = await startFakeOpenAI({ script: (r) => echo(r.body) });
    const transcripts: Transcript[] = [];
    for await (const item of readInputs([join(BUNDLED, 'claude-code', 'tool_heavy.jsonl')], { maxLineBytes: 1 << 26 }))
      if (item.kind === 'transcript') transcripts.push(item.transcript);
    const tok = getTokenizer('o200k_base');
    const judge = await Judge.create({ model: 'm', baseURL: server.baseURL, apiKey: 'k', contextWindow: 128_000 });
    const withJudge = new Evaluation({ strategies: ['mask-observations', 'checkpoint'], tokenizer: tok, judge });
    const without = new Evaluation({ strategies: ['mask-observations', 'checkpoint'], tokenizer: tok });
    for (const t of transcripts) {
      await withJudge.add(t, { file: 'f', line: 1 });
      await without.add(t, { file: 'f', line: 1 });
    }
    const report = withJudge.report();
    expect(report.rows).toEqual(without.report().rows);
    expect(report.judge?.rows.map((r) => r.name)).toEqual(['original', 'mask-observations', 'checkpoint']);
    // The echoing judge finds every file of the original context in its answer.
    const artifact = report.judge!.rows[0].byDimension.artifact;
    expect(artifact.probes).toBeGreaterThan(0);
    expect(artifact.retained).toBe(artifact.probes);
  });
});

const isJudge = (body: ChatBody) => body.messages[0].content.startsWith("You answer questions about an AI agent's working session");
const asks = (body: ChatBody, dimension: keyof typeof JUDGE_QUESTIONS) => isJudge(body) && body.messages[1].content.endsWith(JUDGE_QUESTIONS[dimension]);

/** A script whose faults depend on how many times the server has seen this exact prompt (1 for the first request). */
function byAttempt(fault: (body: ChatBody, attempt: number) => Fault | undefined): (r: Omit<RecordedRequest, 'fault'>) => Fault | undefined {
  const seen = new Map<string, number>();
  return (r) => {
    const key = JSON.stringify(r.body.messages);
    const attempt = (seen.get(key) ?? 0) + 1;
    seen.set(key, attempt);
    return fault(r.body, attempt) ?? (isJudge(r.body) ? echo(r.body) : undefined);
  };
}

async function bundledTranscript(name: string): Promise<Transcript> {
  for await (const item of readInputs([join(BUNDLED, 'claude-code', name)], { maxLineBytes: 1 << 26 })) if (item.kind === 'transcript') return item.transcript;
  throw new Error(`no transcript in ${name}`);
}

describe('Judge asks through the answerer of an LLM session, as the LLM steps do', () => {
  it('retries a 429 (after the wait it asks for) and a 5xx on its questions like a summary request, in the same usage and the same queue', async () => {
    const retryNow = { 'retry-after': '0' };
    server = await startFakeOpenAI({
      script: byAttempt((body, attempt) => {
        if (attempt > 1) return undefined;
        if (asks(body, 'recall')) return { kind: 'rate_limit', retryAfterMs: '50' };
        if (asks(body, 'artifact') || !isJudge(body)) return { kind: 'status', status: 503, headers: retryNow };
        return undefined;
      }),
    });
    const session = await createLlmSession({ model: 'm', baseURL: server.baseURL, apiKey: 'k', contextWindow: 64_000, maxTokens: 1024 });
    const judge = new Judge(session);
    const evaluation = new Evaluation({ strategies: ['summarize'], tokenizer: getTokenizer('o200k_base'), llm: [session], judge, reference: false });
    await evaluation.add(await bundledTranscript('subagent.jsonl'), { file: 'f', line: 1 });
    await session.close();

    const judged = server.requests.filter((r) => isJudge(r.body));
    const summaries = server.requests.filter((r) => !isJudge(r.body));
    expect(summaries.length).toBeGreaterThan(0);
    expect(judge.report().rows.map((r) => r.name)).toEqual(['original', 'summarize']);
    // Every question was answered after its retry: one 429 per recall question, one 503 per artifact question.
    for (const row of judge.report().rows) for (const tally of Object.values(row.byDimension)) expect(tally.failed).toBe(0);
    const usage = session.usage();
    expect(usage.requests).toBe(server.requests.length);
    expect(usage.failuresByCode).toEqual({ rate_limited: 2, server_error: 2 + 1 });
    // Each 429 paused the queue the summaries share.
    expect(usage.pauses).toBe(2);
    expect(usage.timing.longestPauseMs).toBe(50);
    expect(usage.answers).toBe(server.requests.filter((r) => r.usage !== undefined).length);
    expect(judge.report().requests).toBe(judged.length);
    expect(judge.report().promptTokens).toBe(judged.reduce((n, r) => n + (r.usage?.promptTokens ?? 0), 0));
  });

  it('asks again, up to maxAttempts answers, after a 2xx that is not a chat completion or a blank answer; counts a question none answered', async () => {
    server = await startFakeOpenAI({
      script: byAttempt((body, attempt) => {
        if (asks(body, 'decision')) return attempt === 1 ? { kind: 'garbage' } : attempt === 2 ? { kind: 'empty' } : undefined;
        if (asks(body, 'recall')) return { kind: 'garbage' };
        return undefined;
      }),
    });
    const judge = await Judge.create({ model: 'm', baseURL: server.baseURL, apiKey: 'k', contextWindow: 32_000, maxAttempts: 3 });
    await judge.judge('s', extractProbes(original), [{ name: 'original', transcript: original }]);
    const row = judge.report().rows[0].byDimension;
    expect(row.decision).toEqual({ questions: 1, failed: 0, probes: 1, retained: 1 });
    expect(row.recall).toEqual({ questions: 1, failed: 1, probes: 0, retained: 0 });
    expect(judge.report().failuresByCode).toEqual({ rejected: 1 });
    // decision: garbage, blank, answer; recall: three garbage answers; the two other questions: one request each.
    expect(server.requests).toHaveLength(3 + 3 + 2);
    expect(judge.report().requests).toBe(8);
  });

  it('answers from its batch, and asks online once more a question whose batch line was not a chat completion or was blank', async () => {
    server = await startFakeOpenAI({
      script: (r) => echo(r.body),
      batchLineScript: ({ body }) => (asks(body, 'artifact') ? { kind: 'garbage' } : asks(body, 'decision') ? { kind: 'empty' } : echo(body)),
    });
    const judge = await Judge.create({
      model: 'm',
      baseURL: server.baseURL,
      apiKey: 'k',
      contextWindow: 32_000,
      batch: { dir: tempDir('judge-batch'), pollSeconds: 0.05 },
    });
    const probes = extractProbes(original);
    const contexts = [{ name: 'original', transcript: original }];
    const settled = await gatherAndSettle({
      batchers: [judge.session.batcher!],
      pass: async () => {
        await new Judge(judge.session).judge('s', probes, contexts);
        return true;
      },
      stop: new AbortController().signal,
    });
    expect(settled).toBe(true);
    await judge.judge('s', probes, contexts);
    expect(server.batches.map((b) => b.lines.length)).toEqual([4]);
    expect(server.requests.map((r) => (asks(r.body, 'artifact') ? 'artifact' : asks(r.body, 'decision') ? 'decision' : 'other')).sort()).toEqual([
      'artifact',
      'decision',
    ]);
    const report = judge.report();
    for (const tally of Object.values(report.rows[0].byDimension)) expect(tally).toMatchObject({ failed: 0, retained: tally.probes });
    expect(report.failuresByCode).toEqual({});
    expect(report.requests).toBe(2);
    expect(report.batch).toMatchObject({ requests: 4, completed: 3, failed: 1, retriedOnline: 1 });
  });

  it('pays once for a repeated question: the run reuses its own answer, and a re-run reads the answer cache', async () => {
    server = await startFakeOpenAI({ script: (r) => echo(r.body) });
    const cacheDir = tempDir('judge-cache');
    const options = { model: 'm', baseURL: server.baseURL, apiKey: 'k', contextWindow: 32_000, cacheDir };
    const contexts = [
      { name: 'original', transcript: original },
      { name: 'unchanged', transcript: { ...original, messages: [...session] } },
    ];
    const first = await Judge.create(options);
    await first.judge('s', extractProbes(original), contexts);
    expect(server.requests).toHaveLength(4);
    expect(first.report()).toMatchObject({ requests: 4, cacheHits: 4 });
    const [a, b] = first.report().rows;
    expect(b.byDimension).toEqual(a.byDimension);

    const rerun = await Judge.create(options);
    await rerun.judge('s', extractProbes(original), contexts);
    expect(server.requests).toHaveLength(4);
    expect(rerun.report()).toMatchObject({ requests: 0, promptTokens: 0, completionTokens: 0, cacheHits: 8 });
    expect(rerun.report().rows).toEqual(first.report().rows);
  });
});

describe('tcompact eval --judge (built CLI, loopback server)', () => {
  it('adds the judge table to eval.md and the judge report to eval.json', async () => {
    server = await startFakeOpenAI({ script: (r) => echo(r.body) });
    const out = tempDir('judge');
    const input = join(BUNDLED, 'claude-code', 'short.jsonl');
    const { stderr } = await promisify(execFile)(
      process.execPath,
      [CLI, 'eval', input, '--out', out, '--strategy', 'checkpoint', '--judge', 'judge-model', '--llm', server.baseURL, '--judge-window', '64000'],
      {
        env: { ...process.env, OPENAI_API_KEY: 'test-key' },
      },
    );
    expect(stderr).toBe('');
    const md = readFileSync(join(out, 'eval.md'), 'utf8');
    expect(md).toContain('## Judge (judge-model)');
    expect(md).toContain('| context | recall | artifact | continuation | decision | failed questions |');
    const json = JSON.parse(readFileSync(join(out, 'eval.json'), 'utf8'));
    expect(json.judge.rows.map((r: { name: string }) => r.name)).toEqual(['original', 'checkpoint']);
    expect(json.judge.requests).toBe(server.requests.length);
  });
});
