import { describe, expect, it } from 'vitest';
import type { FrontierFigures } from '../../src/replay/policies/policy.js';
import { type PolicyRun, emptyRunTotal } from '../../src/replay/policy-run.js';
import { policyTotals } from '../../src/replay/simulation-report.js';
import type { TranscriptSimulation } from '../../src/replay/transcript-replay.js';

/**
 * Two transcripts under one policy that does not make the source's compactions: a session that compacted, and the
 * compaction agent's file that logs that compaction's summary call, stuck in its replay and with a plan of its own.
 */
const POLICY = { name: 'optimal@0.95', summary: '' };
const plan = (inputCost: number): FrontierFigures => ({
  floor: 0.95,
  feasible: true,
  inputCost,
  overWindow: 0,
  bound: inputCost,
  probes: 0,
  retained: 0,
  points: [{ lambda: 0, relaxed: inputCost }],
});
const run = (over: Partial<PolicyRun>): PolicyRun => ({ ...emptyRunTotal(), ...over });
const sim = (id: string, r: PolicyRun) => ({ id, policies: { [POLICY.name]: r } }) as unknown as TranscriptSimulation;

describe("an archive's totals under a policy that replaced the compaction agent's call", () => {
  const session = sim('s', run({ calls: 4, cost: { withoutCache: 2, withCache: 1 }, replacesCallsOf: ['s:agent-acompact-1'], frontier: plan(1) }));
  const agent = sim('s:agent-acompact-1', run({ calls: 1, stuck: true, cost: { withoutCache: 0.5, withCache: 0.25 }, frontier: plan(0.25) }));
  const [totals] = policyTotals([POLICY], [session, agent]);

  it('does not count the agent file as a stuck transcript', () => {
    expect(totals.calls).toBe(4);
    expect(totals.stuckTranscripts).toBe(0);
  });

  it("leaves the agent file's plan out of the frontier, as out of the cost: the bound is of the same calls", () => {
    expect(totals.frontier).toMatchObject({ transcripts: 1, inputCost: 1, bound: 1 });
    expect(totals.cost.withCache).toBe(1);
  });

  it('counts the agent file, stuck and planned, when the session is not among the inputs', () => {
    const [alone] = policyTotals([POLICY], [agent]);
    expect(alone.stuckTranscripts).toBe(1);
    expect(alone.frontier).toMatchObject({ transcripts: 1, inputCost: 0.25 });
  });
});
