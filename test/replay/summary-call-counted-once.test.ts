import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * A 2.1.88 session that compacted once and its compaction agent's `subagents/agent-acompact-5e1f0a.jsonl`, which logs
 * the session's three replies again and then the summary call: 3 uncached, 400 written, 24,300 read, 80 output (see
 * the fixture's generator).
 */
const FOLDER = join(import.meta.dirname, '..', 'fixtures', 'claude-code', 'acompact-relog');
const SESSION_ID = '7a1c0b2e-0000-4000-8000-000000000301';
const AGENT_ID = `${SESSION_ID}:agent-acompact-5e1f0a`;
const SUMMARY_INPUT = 3 + 400 + 24_300;

interface Calls {
  calls: number;
  input: number;
  output: number;
  cost: number;
  loggedApart?: Record<string, Calls>;
  inOwnTranscripts?: Calls;
  replacedInOwnTranscripts?: Calls;
}
interface Run {
  calls: number;
  billedInput: number;
  outputTokens: number;
  cost: { withoutCache: number; withCache: number };
  compactionCalls?: Calls;
}
interface Simulation {
  policies: (Run & { name: string })[];
  perTranscript: { id: string; policies: Record<string, Run> }[];
  recorded: { usage: { calls: number; cost: { withCache: number } } };
}

async function simulateWith(input: string, ...policies: string[]): Promise<{ sim: Simulation; markdown: string }> {
  const out = tempDir('summary-counted-once');
  const run = await runMain(['simulate', input, ...policies.flatMap((p) => ['--policy', p]), '--base-prompt', 'recorded', '--token-ratio', '1', '--out', out]);
  expect(run.code, run.stderr).toBe(0);
  const sim = JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8')) as Simulation;
  return { sim, markdown: readFileSync(join(out, 'simulate.md'), 'utf8') };
}

const simulate = async (input: string): Promise<Simulation> => (await simulateWith(input, 'source')).sim;

/** The policies table's row of `policy` in simulate.md, its cells. */
function tableRow(markdown: string, policy: string): string[] {
  const line = markdown.split('\n').find((l) => l.startsWith(`| ${policy} `));
  expect(line, policy).toBeDefined();
  return line!.split('|').map((c) => c.trim());
}

describe("a compaction's summary call, over a folder that holds its compaction agent's file", () => {
  it('is billed once in the totals: in the replay of the agent file, which the record counts it in, not again through the session', async () => {
    const sim = await simulate(FOLDER);
    const byId = new Map(sim.perTranscript.map((t) => [t.id, t]));
    expect([...byId.keys()].sort()).toEqual([SESSION_ID, AGENT_ID]);
    const main = byId.get(SESSION_ID)!.policies.source;
    const agent = byId.get(AGENT_ID)!.policies.source;
    // The session's own figures still name the call, and the transcript that logs it.
    expect(main.compactionCalls).toMatchObject({ calls: 1, input: SUMMARY_INPUT, loggedApart: { [AGENT_ID]: { calls: 1, input: SUMMARY_INPUT } } });
    // The agent file's replay makes that call (the re-logged replies are the session's, made there).
    expect(agent.calls).toBe(1);

    const source = sim.policies.find((p) => p.name === 'source')!;
    expect(source.compactionCalls).toMatchObject({ calls: 0, input: 0, cost: 0, inOwnTranscripts: { calls: 1, input: SUMMARY_INPUT } });
    // As many calls as the record: the session's four and the agent's one, each billed once.
    expect(source.calls).toBe(sim.recorded.usage.calls);
    expect(source.calls).toBe(5);
    const summed = main.cost.withCache + agent.cost.withCache;
    expect(source.cost.withCache).toBeCloseTo(summed - main.compactionCalls!.cost, 12);
    expect(main.compactionCalls!.cost).toBeGreaterThan(0.01);
  });

  it("is billed through the session when the agent's file is not among the inputs", async () => {
    const sim = await simulate(join(FOLDER, `${SESSION_ID}.jsonl`));
    const source = sim.policies.find((p) => p.name === 'source')!;
    expect(source.compactionCalls).toMatchObject({ calls: 1, input: SUMMARY_INPUT });
    expect(source.compactionCalls!.inOwnTranscripts).toBeUndefined();
    expect(source.cost.withCache).toBeCloseTo(sim.perTranscript[0].policies.source.cost.withCache, 12);
  });

  it('is named in the table where it is counted, not as a zero', async () => {
    const { sim, markdown } = await simulateWith(FOLDER, 'source');
    const agent = sim.perTranscript.find((t) => t.id === AGENT_ID)!.policies.source;
    const row = tableRow(markdown, 'source');
    expect(row).toContain(`in their own transcripts: 1 call, $${agent.cost.withCache.toFixed(2)}`);
    expect(row.some((c) => c.startsWith('$0.00 (0)'))).toBe(false);
  });
});

describe("a compaction's summary call under source:STRATEGY, which puts our strategy in place of the source's compactions", () => {
  it("is not billed through the compaction agent's file: its transcript adds nothing to the policy's totals", async () => {
    const { sim, markdown } = await simulateWith(FOLDER, 'source:checkpoint');
    const byId = new Map(sim.perTranscript.map((t) => [t.id, t]));
    const main = byId.get(SESSION_ID)!.policies['source:checkpoint'];
    const agent = byId.get(AGENT_ID)!.policies['source:checkpoint'];
    // The agent file's replay still bills its one call, on its own.
    expect(agent.calls).toBe(1);
    expect(agent.cost.withCache).toBeGreaterThan(0.01);

    const policy = sim.policies.find((p) => p.name === 'source:checkpoint')!;
    // The session's four calls, and no more: the source's summary call was replaced by checkpoint's compaction.
    expect(policy.calls).toBe(4);
    expect(policy.cost.withCache).toBeCloseTo(main.cost.withCache, 12);
    expect(policy.compactionCalls).toMatchObject({ calls: 0, cost: 0, replacedInOwnTranscripts: { calls: 1, cost: agent.cost.withCache } });
    expect(tableRow(markdown, 'source:checkpoint')).toContain(`replaced, not billed: 1 call, $${agent.cost.withCache.toFixed(2)}`);

    // The source's own replay still counts the call, once, in the agent file's replay.
    const source = sim.policies.find((p) => p.name === 'source')!;
    expect(source.calls).toBe(5);
  });

  it("bills the agent's file as any transcript when the session that compacted is not among the inputs", async () => {
    const { sim } = await simulateWith(join(FOLDER, SESSION_ID), 'source:checkpoint');
    expect(sim.perTranscript.map((t) => t.id)).toEqual([AGENT_ID]);
    const policy = sim.policies.find((p) => p.name === 'source:checkpoint')!;
    expect(policy.calls).toBe(1);
    expect(policy.compactionCalls).toBeUndefined();
  });
});

describe("a compaction's summary call under a policy that does not make the source's compactions", () => {
  it.each(['none', 'checkpoint-at-0.9'])("%s: not billed through the compaction agent's file, named as replaced", async (name) => {
    const { sim, markdown } = await simulateWith(FOLDER, 'none', 'checkpoint-at-0.9');
    const byId = new Map(sim.perTranscript.map((t) => [t.id, t]));
    const main = byId.get(SESSION_ID)!.policies[name];
    const agent = byId.get(AGENT_ID)!.policies[name];
    // The agent file's replay still bills its one call, on its own.
    expect(agent.calls).toBe(1);
    expect(agent.cost.withCache).toBeGreaterThan(0.01);

    const policy = sim.policies.find((p) => p.name === name)!;
    // The session's four calls only: this policy never made the source's compaction, nor its summary call.
    expect(policy.calls).toBe(4);
    expect(policy.cost.withCache).toBeCloseTo(main.cost.withCache, 12);
    expect(policy.compactionCalls).toMatchObject({ replacedInOwnTranscripts: { calls: 1, cost: agent.cost.withCache } });
    expect(tableRow(markdown, name)).toContain(`replaced, not billed: 1 call, $${agent.cost.withCache.toFixed(2)}`);
  });
});

describe("a compaction's summary call named beside the totals, whether counted in its own transcript or replaced", () => {
  it("is named as its own transcript's replay bills it, the same under source and under none", async () => {
    const { sim } = await simulateWith(FOLDER, 'source', 'none');
    const main = sim.perTranscript.find((t) => t.id === SESSION_ID)!.policies.source;
    const agent = sim.perTranscript.find((t) => t.id === AGENT_ID)!.policies.source;
    const named = { calls: agent.calls, input: agent.billedInput, output: agent.outputTokens, cost: agent.cost.withCache };
    const inOwn = sim.policies.find((p) => p.name === 'source')!.compactionCalls!.inOwnTranscripts!;
    const replaced = sim.policies.find((p) => p.name === 'none')!.compactionCalls!.replacedInOwnTranscripts!;
    expect(inOwn).toEqual(named);
    expect(replaced).toEqual(named);
    // The session's own estimate (the summary it received, at least) is not what the agent's reply counts: the
    // totals name the one count of the call, not the estimate.
    expect(main.compactionCalls!.loggedApart![AGENT_ID].output).not.toBe(agent.outputTokens);
  });
});
