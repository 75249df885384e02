import { beforeAll, describe, expect, it } from 'vitest';
import type { Transcript } from '../../src/model/transcript.js';
import { stepFor } from '../../src/strategies/build-steps.js';
import { parseCompactConfig } from '../../src/strategies/compact-config.js';
import { runSteps } from '../../src/strategies/runner.js';
import { bundledTranscripts, syntheticTranscripts } from '../helpers/bundled-transcripts.js';
import { deepFreeze, expectInvariants, makeContext } from '../helpers/transcript-kit.js';

const NAMES = ['sanitize', 'strip-reasoning', 'mask-observations', 'strip-tool-results', 'strip-attachments', 'prune-tools'] as const;
type Name = (typeof NAMES)[number];

/** Which detail counter shows that a strategy did its job on an archive that has the material for it. */
const WORK: Record<Name, string | undefined> = {
  sanitize: undefined, // the adapters already repair pairing: nothing left to do
  'strip-reasoning': 'reasoningRemoved',
  'mask-observations': 'resultsMasked',
  'strip-tool-results': 'resultsStripped',
  'strip-attachments': 'attachmentsStripped',
  'prune-tools': 'toolDefsRemoved',
};

function runArchive(name: Name, transcripts: readonly Transcript[]) {
  const step = stepFor(name, parseCompactConfig({}));
  const details: Record<string, number> = {};
  let saved = 0;
  for (const input of transcripts) {
    const ctx = makeContext();
    const first = runSteps(input, [step], ctx);
    expectInvariants(input, first.transcript);
    const second = runSteps(first.transcript, [step], ctx);
    expect(second.transcript, `${name} is idempotent on ${input.id}`).toEqual(first.transcript);
    expect(second.steps[0].tokensSaved).toBe(0);
    saved += first.steps[0].tokensSaved;
    for (const [k, v] of Object.entries(first.steps[0].details ?? {})) details[k] = (details[k] ?? 0) + v;
  }
  return { saved, details };
}

describe('mechanical strategies on real and synthetic archives', () => {
  let real: Transcript[] = [];
  let synthetic: Transcript[] = [];
  beforeAll(async () => {
    real = deepFreeze(await bundledTranscripts());
    synthetic = deepFreeze(syntheticTranscripts());
  });

  it('loads the bundled real transcripts', () => {
    expect(real.length).toBeGreaterThanOrEqual(213);
    expect(synthetic.length).toBeGreaterThan(5);
  });

  for (const name of NAMES) {
    it(`${name} keeps the invariants, never adds tokens and is idempotent on every bundled transcript`, () => {
      const { saved, details } = runArchive(name, real);
      if (name === 'sanitize') expect(details).toEqual({ missingResultFilled: 0, orphanResultDropped: 0, duplicateResultDropped: 0, resultMoved: 0 });
      if (name === 'strip-reasoning' || name === 'mask-observations' || name === 'strip-tool-results') {
        expect(details[WORK[name]!]).toBeGreaterThan(0);
        expect(saved).toBeGreaterThan(0);
      }
    });

    it(`${name} keeps the invariants on a seeded synthetic archive`, () => {
      const { saved, details } = runArchive(name, synthetic);
      const counter = WORK[name];
      if (counter) {
        expect(details[counter]).toBeGreaterThan(0);
        expect(saved).toBeGreaterThan(0);
      }
    });
  }
});
