import { beforeAll, describe, expect, it } from 'vitest';
import { repairPairing } from '../../src/model/repair.js';
import type { Transcript } from '../../src/model/transcript.js';
import { findViolations } from '../../src/model/validity.js';
import { buildSteps } from '../../src/strategies/build-steps.js';
import { parseCompactConfig } from '../../src/strategies/compact-config.js';
import { type PipelineStep, type RunResult, runSteps } from '../../src/strategies/runner.js';
import { withMessages } from '../../src/strategies/_edit.js';
import { sanitize } from '../../src/strategies/sanitize.js';
import type { StepReport, Strategy } from '../../src/strategies/types.js';
import { countTranscript } from '../../src/tokens/breakdown.js';
import { type TokenizerName, createTokenizer, getTokenizer } from '../../src/tokens/tokenizer.js';
import { bundledTranscripts, syntheticTranscripts } from '../helpers/bundled-transcripts.js';
import { hasCorpus } from '../helpers/corpus.js';
import { realSessions } from '../helpers/real-sessions.js';
import { deepFreeze, makeContext } from '../helpers/transcript-kit.js';

/** `auto`'s steps, each strategy wrapped to keep what it was given and what it returned. */
function recordedAuto(window: number) {
  const seen: { strategy: string; input: Transcript; output: Transcript }[] = [];
  const steps = buildSteps(parseCompactConfig({ strategies: ['auto'], window })).map((step): PipelineStep => {
    const strategy = step.strategy as Strategy;
    const recorded: Strategy = {
      ...strategy,
      apply(input, config, ctx) {
        const r = strategy.apply(input, config, ctx);
        seen.push({ strategy: strategy.name, input, output: r.transcript });
        return r;
      },
    };
    return { ...step, strategy: recorded };
  });
  return { steps, seen };
}

/** `auto` with each sanitize making the whole repair pass, without first checking whether the transcript is paired. */
function autoRepairingInFull(window: number): PipelineStep[] {
  const steps = buildSteps(parseCompactConfig({ strategies: ['auto'], window }));
  expect(steps[0].strategy).toBe(sanitize);
  const repairing: Strategy = {
    ...sanitize,
    apply(t, _config, ctx) {
      const { messages, repairs, dropped } = repairPairing(t.messages);
      for (const m of dropped) ctx.refs?.putJson(JSON.stringify(m));
      return { transcript: withMessages(t, messages), messagesChanged: 0, messagesRemoved: dropped.length, details: { ...repairs } };
    },
  };
  return steps.map((step) => (step.strategy === sanitize ? { ...step, strategy: repairing } : step));
}

const withoutTimes = (steps: readonly StepReport[]) => steps.map(({ ms: _ms, ...rest }) => rest);

/**
 * Runs `auto` on every transcript and checks what the runner and sanitize no longer do in full: the runner counts after
 * each step only the messages the step changed, and sanitize checks a transcript paired before any repair pass.
 */
function checkPasses(transcripts: readonly Transcript[], tokenizer: TokenizerName, window: number): void {
  for (const input of transcripts) {
    const { steps, seen } = recordedAuto(window);
    const ctx = { ...makeContext(), tokenizer: getTokenizer(tokenizer), window };
    const run: RunResult = runSteps(input, steps, ctx);
    // A tokenizer with no memo of any message: the counts of every step from scratch.
    const fresh = createTokenizer(tokenizer, { cache: false });
    const ran = run.steps.filter((s) => !s.skipped);
    expect(ran.map((s) => s.strategy)).toEqual(seen.map((s) => s.strategy));
    ran.forEach((report, i) => expect(report.tokensAfter, `${input.id}: ${report.strategy}`).toBe(countTranscript(seen[i].output, fresh).total));
    expect(run.after).toEqual(countTranscript(run.transcript, fresh).byCategory);
    expect(run.before).toEqual(countTranscript(input, fresh).byCategory);

    // The last sanitize's input: repairing it would give it back as it is.
    const last = seen[seen.length - 1];
    expect(last.strategy).toBe('sanitize');
    const repaired = repairPairing(last.input.messages);
    expect(repaired.messages, input.id).toBe(last.input.messages);
    expect(repaired.repairs).toEqual({ missingResultFilled: 0, orphanResultDropped: 0, duplicateResultDropped: 0, resultMoved: 0 });
    expect(findViolations(last.input.messages)).toEqual([]);
    // And the same run with each sanitize making the whole repair pass gives the same transcript and the same reports.
    const inFull = runSteps(input, autoRepairingInFull(window), { ...makeContext(), tokenizer: getTokenizer(tokenizer), window });
    expect(inFull.transcript).toEqual(run.transcript);
    expect(withoutTimes(inFull.steps)).toEqual(withoutTimes(run.steps));
  }
}

describe('the passes auto no longer makes in full, on the bundled and synthetic archives', () => {
  let real: Transcript[] = [];
  let synthetic: Transcript[] = [];
  beforeAll(async () => {
    real = deepFreeze(await bundledTranscripts());
    synthetic = deepFreeze(syntheticTranscripts());
  });

  // At a 16K window checkpoint and truncate run too; the corpus suite adds o200k_base and the default window.
  it('counts each step as a count from scratch would, and the last sanitize would change nothing', () => {
    expect(real.length).toBeGreaterThanOrEqual(213);
    checkPasses(real, 'heuristic', 16_000);
    checkPasses(synthetic, 'heuristic', 16_000);
  });
});

const REAL = 'the passes auto no longer makes in full, on every real session of the shared corpus';
describe.skipIf(!hasCorpus(REAL))(REAL, () => {
  let sessions: Transcript[] = [];
  beforeAll(async () => {
    sessions = deepFreeze(await realSessions());
  });

  for (const tokenizer of ['heuristic', 'o200k_base'] as const) {
    it(`counts each step as a count from scratch would, and the last sanitize would change nothing (${tokenizer})`, () => {
      expect(sessions.length).toBe(254);
      checkPasses(sessions, tokenizer, 16_000);
      if (tokenizer === 'heuristic') checkPasses(sessions, tokenizer, 200_000);
    });
  }
});
