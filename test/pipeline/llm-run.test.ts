import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readInputs } from '../../src/formats/read-inputs.js';
import type { Transcript } from '../../src/model/transcript.js';
import { findViolations } from '../../src/model/validity.js';
import { type FakeServer, startFakeOpenAI } from '../llm/fake-openai-server.js';
import { readJsonl, runCli, sha256, tempDir } from './helpers.js';

/**
 * `tcompact run --model` against a loopback Chat Completions server, on the bundled real dataset: the summarizer step of
 * `auto` goes to the model on the main thread for transcripts above its threshold (a 20k window makes the Claude Code
 * sessions qualify), every transcript is still in the output, and the answer cache makes a re-run free.
 */
const dir = tempDir('llm-run');
const out = join(dir, 'out');
let server: FakeServer;
let first: Awaited<ReturnType<typeof runCli>>;
let requestsAfterFirst: number;
const args = (baseURL: string) => ['run', 'datasets/bundled', '--strategy', 'auto', '--out', out, '--window', '20000', '--model', 'gpt-4o-mini', '--llm', baseURL, '--rpm', '600', '--quiet'];
const env = { OPENAI_API_KEY: 'test-key' };

interface LlmReport {
  transcripts: number;
  strategies: { name: string; runs: number; tokensSaved: number }[];
  llm: { requests: number; promptTokens: number; completionTokens: number; jobsFailed: number; cacheHits: number; limits: { rpm: number | null } };
}

beforeAll(async () => {
  server = await startFakeOpenAI({});
  first = await runCli(args(server.baseURL), { env });
  requestsAfterFirst = server.requests.length;
});
afterAll(async () => server.close());

describe('tcompact run with an LLM', () => {
  it('summarizes the transcripts above the threshold with the model and keeps every transcript', async () => {
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as LlmReport;
    const summarize = report.strategies.find((s) => s.name === 'summarize');
    expect(summarize?.runs).toBeGreaterThan(0);
    expect(summarize?.tokensSaved).toBeGreaterThan(0);
    const outIds = readJsonl<Transcript>(join(out, 'transcripts.jsonl')).map((t) => t.id);
    const inIds: string[] = [];
    for await (const item of readInputs(['datasets/bundled'], { maxLineBytes: 1 << 26 })) if (item.kind === 'transcript') inIds.push(item.transcript.id);
    expect(outIds).toEqual(inIds);
    const summarized = readJsonl<Transcript>(join(out, 'transcripts.jsonl')).filter((t) =>
      t.messages.some((m) => typeof m.content === 'string' && m.content.startsWith('[tcompact summary of')),
    );
    expect(summarized.length).toBeGreaterThan(0);
    for (const t of summarized) expect(findViolations(t.messages)).toEqual([]);
  });

  it('reports the usage: requests as the server saw them, tokens, and the limits in force', () => {
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as LlmReport;
    expect(report.llm.requests).toBe(requestsAfterFirst);
    expect(requestsAfterFirst).toBeGreaterThan(0);
    expect(report.llm.promptTokens).toBeGreaterThan(0);
    expect(report.llm.jobsFailed).toBe(0);
    expect(report.llm.limits.rpm).toBe(600);
    expect(first.stdout).toMatch(/^llm: \d+ requests, \d+ prompt \+ \d+ completion tokens/m);
  });

  it('restores the input byte for byte through the extra restore layer the LLM stage adds', async () => {
    const restored = join(dir, 'restored.jsonl');
    expect((await runCli(['restore', out, '--out', restored])).code).toBe(0);
    let expected = '';
    for await (const item of readInputs(['datasets/bundled'], { maxLineBytes: 1 << 26 })) if (item.kind === 'transcript') expected += `${JSON.stringify(item.transcript)}\n`;
    expect(readFileSync(restored, 'utf8')).toBe(expected);
  });

  it('answers a re-run from the cache in DIR/llm-cache: no request, the same bytes', async () => {
    const before = sha256(join(out, 'transcripts.jsonl'));
    const again = await runCli(args(server.baseURL), { env });
    expect(again.code).toBe(0);
    expect(server.requests.length).toBe(requestsAfterFirst);
    expect(sha256(join(out, 'transcripts.jsonl'))).toBe(before);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as LlmReport;
    expect(report.llm.cacheHits).toBe(requestsAfterFirst);
  });

  it('refuses LLM flags without --model', async () => {
    const r = await runCli(['run', 'datasets/bundled', '--out', join(dir, 'x'), '--rpm', '10']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--rpm needs --model NAME');
  });
});
