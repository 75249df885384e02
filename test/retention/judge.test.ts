import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { Evaluation } from '../../src/retention/eval-run.js';
import { JUDGE_QUESTIONS, Judge } from '../../src/retention/judge.js';
import { extractProbes } from '../../src/retention/probes.js';
import { readInputs } from '../../src/formats/read-inputs.js';
import type { Message } from '../../src/model/message.js';
import type { Transcript } from '../../src/model/transcript.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { type ChatBody, type FakeServer, startFakeOpenAI } from '../llm/fake-openai-server.js';
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
