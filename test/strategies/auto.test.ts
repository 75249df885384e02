import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/model/message.js';
import type { Transcript } from '../../src/model/transcript.js';
import { buildSteps } from '../../src/strategies/build-steps.js';
import { parseCompactConfig } from '../../src/strategies/compact-config.js';
import { compactTranscript } from '../../src/strategies/compact-transcript.js';
import { runSteps } from '../../src/strategies/runner.js';
import { assistant, call, deepFreeze, expectInvariants, makeContext, result, sys, transcript, user } from '../helpers/transcript-kit.js';

const bulk = (i: number) => `${i}: ${'lorem ipsum dolor sit amet '.repeat(60)}`;

/** Twelve turns of a coding agent: a re-read file, bulky command outputs, some reasoning. */
function session() {
  const messages: Message[] = [sys('You are a coding agent.'), user('Fix the build')];
  for (let i = 0; i < 12; i++) {
    messages.push(
      assistant(null, {
        reasoning_content: `thinking about step ${i} ${bulk(i).slice(0, 300)}`,
        tool_calls: [call(`r${i}`, 'Read', { file_path: 'src/a.ts' })],
      }),
      result(`r${i}`, bulk(100)),
      assistant(null, { tool_calls: [call(`b${i}`, 'Bash', { command: `make step-${i}` })] }),
      result(`b${i}`, bulk(i)),
      user(`next ${i}`),
    );
  }
  messages.push(assistant('All done.'));
  return deepFreeze(transcript(messages));
}

const NAMES = [
  'sanitize',
  'strip-reasoning',
  'dedup-tools',
  'mask-observations',
  'strip-attachments',
  'prune-tools',
  'checkpoint',
  'truncate',
  'checkpoint',
  'prune-tools',
  'sanitize',
];

function runAuto(window: number, options: Record<string, unknown> = {}) {
  const input = session();
  const config = parseCompactConfig({ window, options });
  const r = runSteps(input, buildSteps(config), { ...makeContext(), window });
  expectInvariants(input, r.transcript);
  expect(r.steps.map((s) => s.strategy)).toEqual(NAMES);
  expect(r.steps.reduce((n, s) => n + s.tokensSaved, 0)).toBe(r.tokensBefore - r.tokensAfter);
  return r;
}

describe('auto', () => {
  it('expands into the mechanical steps, the checkpoint, truncate, the checkpoint again, prune-tools again and sanitize', () => {
    expect(buildSteps(parseCompactConfig({})).map((s) => s.strategy.name)).toEqual(NAMES);
  });

  it('records every step, skipping the checkpoint and truncate below the threshold', () => {
    const r = runAuto(200_000);
    expect(r.steps.filter((s) => s.skipped).map((s) => s.strategy)).toEqual(['checkpoint', 'truncate', 'checkpoint']);
    const saved = Object.fromEntries(r.steps.map((s) => [s.strategy, s.tokensSaved]));
    expect(saved['strip-reasoning']).toBeGreaterThan(0);
    expect(saved['dedup-tools']).toBeGreaterThan(0);
    // The last 10 results are protected (reads r7-r11 with the builds between them); r0-r6 go, covered by r11.
    expect(r.steps.find((s) => s.strategy === 'dedup-tools')?.details).toEqual({ duplicatesRemoved: 7, subsumedRemoved: 0 });
  });

  it('runs the checkpoint when the mechanical steps leave the transcript above half the window', () => {
    const afterMechanical = runAuto(200_000).steps[5].tokensAfter;
    const r = runAuto(Math.floor(afterMechanical * 1.5));
    const ck = r.steps[6];
    expect(ck.skipped).toBeUndefined();
    expect(ck.tokensSaved).toBeGreaterThan(0);
    expect(r.steps[7].skipped).toBe(true);
    expect(r.steps[8].skipped).toBe(true);
  });

  it('truncates as a last resort when even the checkpoint leaves it over the hard limit', () => {
    const afterMechanical = runAuto(200_000).steps[5].tokensAfter;
    const afterCheckpoint = runAuto(Math.floor(afterMechanical * 1.5)).steps[6].tokensAfter;
    const window = Math.floor(afterCheckpoint / 0.98) - 1;
    const r = runAuto(window);
    expect(r.steps[6].skipped).toBeUndefined();
    expect(r.steps[7].skipped).toBeUndefined();
    expect(r.steps[7].details).toEqual({ truncations: 1 });
    expect(r.tokensAfter).toBeLessThanOrEqual(Math.floor(0.9 * window));
  });

  it('checkpoints again what a truncation leaves, so compacting its output again changes nothing', () => {
    const fixture = JSON.parse(readFileSync(new URL('../fixtures/strategies/auto-after-truncation.json', import.meta.url), 'utf8')) as {
      transcript: Transcript;
      tail: Record<string, number>;
      window: number;
    };
    // Under 0.97 of the window the fixture is over the hard limit with room to spare: the placeholders' refs (hex
    // digits) take a few tokens more or less as their hashes change, which the default limit (0.98) had no room for.
    const steps = buildSteps(parseCompactConfig({ ...fixture.tail, window: fixture.window, options: { auto: { hardLimit: 0.97 } } }));
    const ctx = () => ({ ...makeContext(), window: fixture.window });
    const once = compactTranscript(deepFreeze(fixture.transcript), steps, ctx());
    expectInvariants(fixture.transcript, once.transcript);
    const [first, cut, second] = once.steps.slice(6, 9);
    expect(first.details).toEqual({ checkpoints: 0, messagesReplaced: 0 });
    expect(cut.details).toEqual({ truncations: 1 });
    expect(second.details).toEqual({ checkpoints: 1, messagesReplaced: 5 });
    const again = compactTranscript(JSON.parse(JSON.stringify(once.transcript)) as Transcript, steps, ctx());
    expect(again.steps.every((s) => s.tokensSaved === 0)).toBe(true);
    expect(JSON.stringify(again.transcript)).toBe(JSON.stringify(once.transcript));
  });

  it('takes its thresholds from options.auto', () => {
    const afterMechanical = runAuto(200_000).steps[5].tokensAfter;
    const r = runAuto(Math.floor(afterMechanical * 1.5), { auto: { summarizeThreshold: 0.9 } });
    expect(r.steps[6].skipped).toBe(true);
  });

  it('rejects bad auto options with their exact path', () => {
    expect(() => buildSteps(parseCompactConfig({ options: { auto: { summarizeThreshold: 1.5 } } }))).toThrow(
      'options.auto.summarizeThreshold: Too big: expected number to be <=1',
    );
    expect(() => buildSteps(parseCompactConfig({ options: { auto: { summarizeThreshold: 0.99, hardLimit: 0.9 } } }))).toThrow(
      'options.auto.summarizeThreshold: summarizeThreshold must not exceed hardLimit',
    );
    expect(() => buildSteps(parseCompactConfig({ options: { auto: { every: 1 } } }))).toThrow('options.auto: Unrecognized key: "every"');
    expect(() => buildSteps(parseCompactConfig({ options: { auto: { summarizer: 'nope' } } }))).toThrow('unknown strategy "nope"');
    expect(() => buildSteps(parseCompactConfig({ options: { nope: {} } }))).toThrow('options.nope: no strategy or preset of that name');
  });
});
