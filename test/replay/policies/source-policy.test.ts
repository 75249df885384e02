import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourceCompactionPoints } from '../../../src/replay/policies/source-points.js';
import { readInputs } from '../../../src/formats/read-inputs.js';
import type { Message } from '../../../src/model/message.js';
import type { Transcript } from '../../../src/model/transcript.js';
import { countMessage, totalOf } from '../../../src/tokens/breakdown.js';
import { getTokenizer } from '../../../src/tokens/tokenizer.js';
import { assistant, call, result, transcript, user } from '../../helpers/transcript-kit.js';
import { type FakeServer, startFakeOpenAI } from '../../llm/fake-openai-server.js';
import { runMain } from '../../helpers/cli-in-process.js';
import { BUNDLED, ROOT, runCli, tempDir } from '../../pipeline/helpers.js';

/**
 * `simulate --policy source:STRATEGY`: our strategy at exactly the calls where the transcript's source
 * compacted or was asked to, beside the source's own compaction (`source`) at the same points.
 */
const SESSION = join(BUNDLED, 'claude-code', 'ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl');
const CODEX = join(ROOT, 'test', 'fixtures', 'codex');
const tok = getTokenizer('o200k_base');

async function transcripts(path: string): Promise<Transcript[]> {
  const out: Transcript[] = [];
  for await (const item of readInputs([path], { maxLineBytes: 64 << 20 })) if (item.kind === 'transcript') out.push(item.transcript);
  return out;
}

const PAD = Array.from({ length: 60 }, (_, i) => `line ${i}: the build log of step ${i} says the compiler finished without warnings`).join('\n');
/**
 * The agent reads twelve modules one call at a time before it builds: more tool results than the default tail holds
 * (the last 10), so a compaction at either point has a middle to replace.
 */
const READS: Message[] = Array.from({ length: 12 }, (_, i) => [
  assistant(null, { tool_calls: [call(`r${i}`, 'Read', { file_path: `/srv/app/storage/part_${i}.py` })] }),
  result(`r${i}`, PAD),
]).flat();

/** A session of an agent with a Compact tool (J-CLI) and a typed /compact, in the canonical format. */
const AGENT = transcript(
  [
    user('Refactor the storage layer of the service'),
    ...READS,
    assistant(null, { tool_calls: [call('c2', 'Bash', { command: 'make build' })] }),
    result('c2', PAD),
    assistant('Refactored.'),
    user('Run the tests'),
    assistant(null, { tool_calls: [call('c3', 'Compact', { focus: 'the storage API' })] }),
    result('c3', 'Context compacted.'),
    assistant(null, { tool_calls: [call('c4', 'Bash', { command: 'make test' })] }),
    result('c4', PAD),
    assistant('Tests pass.'),
    user('/compact keep the test results'),
    assistant('Compacted.'),
    user('Now ship it'),
    assistant('Shipped.'),
  ],
  { id: 'jcli-session' },
);

describe('the source compaction points', () => {
  it("finds Claude Code's manual boundary in a real session, with its /compact command's focus and the recorded summary", async () => {
    const [t] = await transcripts(SESSION);
    const points = sourceCompactionPoints(t);
    const compactions = t.metadata?.compactions as { boundaryIndex: number; summaryIndex: number }[];
    expect(compactions).toHaveLength(1);
    expect(points).toHaveLength(1);
    const [p] = points;
    expect(p.kinds).toEqual(['boundary', 'command']);
    expect(p.focus).toBe('and continue with the reamining tasks');
    expect(p.index).toBe(compactions[0].boundaryIndex);
    expect(p.summary).toBe(t.messages[compactions[0].summaryIndex]);
    // The first model call after the boundary, and the number of calls before it.
    expect(t.messages[p.callIndex].role).toBe('assistant');
    expect(t.messages.slice(p.index, p.callIndex).some((m) => m.role === 'assistant')).toBe(false);
    expect(p.call).toBe(t.messages.slice(0, p.callIndex).filter((m) => m.role === 'assistant').length);
  });

  it("finds Codex's compacted records: one with its summary, one with its replacement history and an opaque summary", async () => {
    const all = await transcripts(CODEX);
    const withPoints = all.map((t) => ({ t, points: sourceCompactionPoints(t) })).filter((x) => x.points.length > 0);
    expect(withPoints).toHaveLength(2);
    const [local, remote] = withPoints;
    expect(local.points.map((p) => p.kinds)).toEqual([['compacted']]);
    expect((local.points[0].summary as Record<string, unknown>).is_compact_summary).toBe(true);
    expect(local.points[0].summary).toBe(local.t.messages[local.points[0].index]);
    expect(local.points[0].opaque).toBeUndefined();
    expect(remote.points.map((p) => [p.kinds, p.opaque, p.summary])).toEqual([[['compacted'], true, undefined]]);
    expect(remote.points[0].kept?.every((m) => (m as Record<string, unknown>).is_compact_summary === true)).toBe(true);
  });

  it("finds the agent's Compact tool with its focus (before the call after its result) and a typed /compact", () => {
    const points = sourceCompactionPoints(AGENT);
    expect(points.map((p) => ({ call: p.call, callIndex: p.callIndex, kinds: p.kinds, focus: p.focus, summary: p.summary }))).toEqual([
      { call: 15, callIndex: 31, kinds: ['tool'], focus: 'the storage API', summary: undefined },
      { call: 17, callIndex: 35, kinds: ['command'], focus: 'keep the test results', summary: undefined },
    ]);
  });
});

interface PolicyJson {
  name: string;
  compactions: number;
  billedInput: number;
  atSourcePoints?: { points: number; tokensBefore: number; tokensAfter: number; score: { overall: { probes: number; retained: number } } };
}
interface SimJson {
  policies: PolicyJson[];
  sourcePoints: { transcripts: number; points: number; withSummary: number; byKind: Record<string, number> };
  perTranscript: { policies: Record<string, { atPoints?: { call: number; tokensBefore: number; tokensAfter: number; known: boolean }[] }> }[];
}

describe('simulate --policy source:STRATEGY', () => {
  let server: FakeServer;
  beforeAll(async () => {
    server = await startFakeOpenAI({});
  });
  afterAll(async () => {
    await server.close();
  });

  it("puts the source's own compaction (its summary) and checkpoint side by side at the real session's boundary", async () => {
    const dir = tempDir('simulate-source');
    const r = await runCli(['simulate', SESSION, '--policy', 'source:checkpoint', '--out', dir]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const json = JSON.parse(readFileSync(join(dir, 'simulate.json'), 'utf8')) as SimJson;
    // `source` is added beside source:checkpoint.
    expect(json.policies.map((p) => p.name)).toEqual(['none', 'optimal', 'source', 'source:checkpoint']);
    const [none, own, ours] = json.policies.filter((p) => p.name !== 'optimal');
    expect(json.sourcePoints).toEqual({ transcripts: 1, points: 1, withSummary: 1, byKind: { boundary: 1, command: 1 } });
    expect(own.compactions).toBe(1);
    expect(ours.compactions).toBe(1);
    expect(own.billedInput).toBeLessThan(none.billedInput);
    expect(ours.billedInput).toBeLessThan(none.billedInput);

    // The source's prompt after its compaction, counted here by hand: its summary, then the messages after the
    // boundary up to the call (the /compact command and its output), as the replay counts them.
    const [t] = await transcripts(SESSION);
    const [p] = sourceCompactionPoints(t);
    const kept: Message[] = [p.summary as Message, ...t.messages.slice(p.index, p.callIndex).filter((m) => m !== p.summary)];
    const expectedAfter = kept.reduce((n, m) => n + totalOf(countMessage(m, tok)), 0);
    const at = json.perTranscript[0].policies.source.atPoints ?? [];
    expect(at).toHaveLength(1);
    expect(at[0].call).toBe(p.call);
    expect(at[0].tokensAfter).toBe(expectedAfter);
    expect(own.atSourcePoints?.tokensAfter).toBe(expectedAfter);
    // Both are scored on the same probes (the history before the point), whatever each kept.
    expect(own.atSourcePoints?.score.overall.probes).toBe(ours.atSourcePoints?.score.overall.probes);
    expect(ours.atSourcePoints?.tokensBefore).toBe(own.atSourcePoints?.tokensBefore);
    expect(ours.atSourcePoints?.score.overall.retained).toBeGreaterThan(0);
    expect(readFileSync(join(dir, 'simulate.md'), 'utf8')).toContain("## At the source's own compaction points");
  });

  it("summarizes at the agent's Compact tool and the typed /compact with each one's focus (source:summarize, loopback model)", async () => {
    const dir = tempDir('simulate-source-llm');
    const input = join(dir, 'agent.jsonl');
    writeFileSync(input, `${JSON.stringify(AGENT)}\n`);
    const sent = server.requests.length;
    const r = await runMain(['simulate', input, '--policy', 'source:summarize', '--model', 'm', '--llm', server.baseURL, '--out', dir], {
      env: { OPENAI_API_KEY: 'test-key' },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const json = JSON.parse(readFileSync(join(dir, 'simulate.json'), 'utf8')) as SimJson;
    expect(json.sourcePoints).toEqual({ transcripts: 1, points: 2, withSummary: 0, byKind: { tool: 1, command: 1 } });
    const own = json.perTranscript[0].policies.source.atPoints ?? [];
    // No summary recorded: the source's own row leaves the context and does not count those points.
    expect(own.map((p) => p.known)).toEqual([false, false]);
    expect(json.policies.find((p) => p.name === 'source')?.atSourcePoints?.points).toBe(0);
    const requests = server.requests.slice(sent);
    // Each summary request carries the focus of its own point in the system prompt.
    const focuses = requests.map((q) => /Pay particular attention to: (.*)/.exec(q.body.messages.find((m) => m.role === 'system')?.content ?? '')?.[1]);
    expect(focuses).toEqual(['the storage API', 'keep the test results']);
    expect(json.policies.find((p) => p.name === 'source:summarize')?.compactions).toBe(2);
  });
});
