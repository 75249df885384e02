import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readInputs } from '../../../src/formats/read-inputs.js';
import { DEFAULT_MAX_LINE_BYTES } from '../../../src/io/line-reader.js';
import type { Transcript } from '../../../src/model/transcript.js';
import { recordedPromptTokens } from '../../../src/replay/billing/recorded-usage.js';
import type { FidelitySummary } from '../../../src/replay/fidelity/fidelity-summary.js';
import type { SessionFidelity } from '../../../src/replay/fidelity/session-fidelity.js';
import type { PolicyRun } from '../../../src/replay/policy-run.js';
import type { PricedUsage } from '../../../src/replay/transcript-replay.js';
import { runMain } from '../../helpers/cli-in-process.js';
import { BUNDLED, ROOT } from '../../helpers/paths.js';
import { tempDir } from '../../helpers/temp-dir.js';

interface SimulateJson {
  fidelity?: FidelitySummary;
  perTranscript: { id: string; recorded?: PricedUsage; fidelity?: SessionFidelity; policies: Record<string, PolicyRun> }[];
  trace?: { prompts: Record<string, number[]> };
  modelPrices: Record<string, { rates: { output: number } }>;
}

async function simulate(input: string, args: string[]): Promise<{ json: SimulateJson; md: string; html: string }> {
  const out = tempDir('fidelity');
  const run = await runMain(['simulate', input, '--window', '200000', ...args, '--out', out]);
  expect([run.code, run.stderr]).toEqual([0, '']);
  return {
    json: JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8')) as SimulateJson,
    md: readFileSync(join(out, 'simulate.md'), 'utf8'),
    html: readFileSync(join(out, 'simulate.html'), 'utf8'),
  };
}

async function firstTranscript(path: string): Promise<Transcript> {
  for await (const item of readInputs([path], { maxLineBytes: DEFAULT_MAX_LINE_BYTES })) if (item.kind === 'transcript') return item.transcript;
  throw new Error(`no transcript in ${path}`);
}

/** What a usage or a run's output cost at each model's output price. */
const outputCost = (byModel: Record<string, { output?: number; outputTokens?: number }>, json: SimulateJson) =>
  Object.entries(byModel).reduce((n, [model, x]) => n + ((x.output ?? x.outputTokens ?? 0) * json.modelPrices[model].rates.output) / 1e6, 0);

// A real Claude Code session (bundled) that compacted once, answered by Haiku before and Opus after.
const SESSION = join(BUNDLED, 'claude-code', 'ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl');
const REPLAY = ['--base-prompt', 'recorded', '--token-ratio', 'recorded'];

describe('the fidelity table on a real Claude Code session', () => {
  let run: Awaited<ReturnType<typeof simulate>>;
  let f: SessionFidelity;
  beforeAll(async () => {
    run = await simulate(SESSION, ['--policy', 'source', ...REPLAY]);
    f = run.json.perTranscript[0].fidelity!;
  });

  it("holds the source replay's input, cache writes and input-side cost against the record's", () => {
    const { recorded, policies } = run.json.perTranscript[0];
    const source = policies.source;
    expect(f.policy).toBe('source');
    expect(f.calls).toEqual({ recorded: recorded!.calls, replayed: source.calls });
    expect(f.input).toEqual({ recorded: recorded!.input, replayed: source.billedInput, offBy: source.billedInput / recorded!.input - 1 });
    expect([f.cacheWrites.recorded, f.cacheWrites.replayed]).toEqual([recorded!.cacheCreation, source.cacheWrites]);
    // The output is left out of both costs; the source's summary calls, which the record holds apart, of the replay's.
    expect(f.inputCost.recorded).toBeCloseTo(recorded!.cost.withCache - outputCost(recorded!.byModel, run.json), 9);
    const summaries = source.compactionCalls?.cost ?? 0;
    expect(f.inputCost.replayed).toBeCloseTo(source.cost.withCache - summaries - outputCost(source.byModel, run.json), 9);
  });

  it("carries the post-compaction step the record shows, so no call departs at the source's compaction any more", async () => {
    const transcript = await firstTranscript(SESSION);
    const recordedPrompts = transcript.messages.filter((m) => m.role === 'assistant').map((m) => recordedPromptTokens(m));
    const replayed = run.json.trace!.prompts.source;
    const first = replayed.findIndex((p, i) => recordedPrompts[i] !== undefined && Math.abs(p - recordedPrompts[i]!) > 0.1 * recordedPrompts[i]!);
    expect(first).toBe(-1);
    expect(f.departure).toBeUndefined();
    expect(f.estimated).toEqual([expect.stringMatching(/^post-compaction step \(1 point, [\d,]+ tokens\)$/) as string]);
  });

  it("without the base prompt measured on the record, names the first call more than 10% off, and the source's compaction before it", async () => {
    const transcript = await firstTranscript(SESSION);
    const plain = await simulate(SESSION, ['--policy', 'source', '--base-prompt', '0', '--token-ratio', 'recorded']);
    const g = plain.json.perTranscript[0].fidelity!;
    const recordedPrompts = transcript.messages.filter((m) => m.role === 'assistant').map((m) => recordedPromptTokens(m));
    const replayed = plain.json.trace!.prompts.source;
    const first = replayed.findIndex((p, i) => recordedPrompts[i] !== undefined && Math.abs(p - recordedPrompts[i]!) > 0.1 * recordedPrompts[i]!);
    expect(first).toBeGreaterThanOrEqual(0);
    expect(g.departure).toMatchObject({ call: first + 1, recorded: recordedPrompts[first], replayed: replayed[first] });
    expect(g.estimated).toEqual([]);
  });

  it('writes the table and its summary in simulate.json, simulate.md and simulate.html', () => {
    const s = run.json.fidelity!;
    expect(s).toMatchObject({ policy: 'source', sessions: 1, input: f.input, inputCost: f.inputCost, cacheWrites: f.cacheWrites, departing: 0 });
    expect(run.md).toContain('## The replay against the record');
    expect(run.md).toMatch(/The 'source' replay against the record of 1 sessions: input [-+]?\d+\.\d%/);
    const row = run.md.split('\n').find((l) => l.startsWith('| ae4a77f8-aedd-4bc1-888f-c94edc91af04 |'));
    expect(row).toMatch(/\| – \| post-compaction step \(1 point, [\d,]+ tokens\) \|$/);
    expect(run.html).toContain('The replay against the record');
    expect(run.html).toContain('ae4a77f8-aedd-4bc1-888f-c94edc91af04');
  });

  it('replays source for the table when it is not among the policies, with the same figures', async () => {
    const without = await simulate(SESSION, ['--policy', 'none', ...REPLAY]);
    expect(without.json.perTranscript[0].policies.source).toBeUndefined();
    expect(without.json.perTranscript[0].fidelity).toEqual(f);
  });
});

describe('the fidelity table on a session with unlogged content (fixture)', () => {
  // test/fixtures/fidelity/SOURCE.md: each call's record is 12,000 tokens of base prompt plus the replay's own prompt,
  // and 6,000 tokens more from the third call on, where a tool search loaded a definition the file does not hold.
  const FIXTURE = join(ROOT, 'test', 'fixtures', 'fidelity', 'unlogged-jump.jsonl');

  it('departs first at the third call, by the 6,000 tokens, and says unlogged content was there', async () => {
    const { json, md } = await simulate(FIXTURE, ['--policy', 'source', '--base-prompt', 'recorded']);
    const f = json.perTranscript[0].fidelity!;
    expect(f.calls).toEqual({ recorded: 4, replayed: 4 });
    expect(f.input.recorded - f.input.replayed).toBe(12_000);
    expect(f.departure).toMatchObject({ call: 3, causes: ['unlogged-content'] });
    expect(f.departure!.recorded - f.departure!.replayed).toBe(6_000);
    expect(json.fidelity).toMatchObject({ sessions: 1, withinInput: 0, departing: 1, flagged: 0, syntheticCalls: 0 });
    expect(md).toMatch(/\| 5f0c3a52-8d41-4c7e-9b1a-0d6e2f4a7c11 \|.*\| 3 \| 18,099 \| 12,099 \| unlogged content \|/);
  });
});

describe('the fidelity table is not Claude-specific', () => {
  it.each([
    ['Codex', join(ROOT, 'test', 'fixtures', 'codex', 'rollout-2025-10-29T00-59-38-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl')],
    ['Gemini CLI', join(ROOT, 'test', 'fixtures', 'gemini', 'chats', 'session-2026-05-02T10-15-8d582aea.jsonl')],
  ])('holds a %s session with recorded usage against its record in the same table', async (_agent, file) => {
    const { json, md } = await simulate(file, ['--policy', 'source']);
    const t = json.perTranscript[0];
    expect(t.fidelity!.input).toMatchObject({ recorded: t.recorded!.input, replayed: t.policies.source.billedInput });
    expect(t.fidelity!.cacheWrites.replayed).toBe(t.policies.source.cacheWrites);
    expect(md.split('\n').some((l) => l.startsWith(`| ${t.id} |`))).toBe(true);
  });
});
