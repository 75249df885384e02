import { expect } from 'vitest';
import type { Transcript } from '../../src/model/transcript.js';
import { restoreTranscript } from '../../src/refs/restore.js';
import { buildSteps } from '../../src/strategies/build-steps.js';
import { parseCompactConfig } from '../../src/strategies/compact-config.js';
import { compactTranscript } from '../../src/strategies/compact-transcript.js';
import { expectInvariants, makeContext } from '../helpers/transcript-kit.js';

/** A frame small enough that the default strategies act on a short fixture: a 2,000-token window, the last turn kept. */
const SMALL = { window: 2_000, keepLast: 1, keepMessages: 0, keepResults: 0 };

/**
 * Compacts a converted transcript with the default strategies, checks the strategies' invariants, then restores the
 * output as `restore` reads it (parsed back from its JSON line). Returns the tokens saved; the restored transcript
 * must be the input byte for byte.
 */
export function compactAndRestore(input: Transcript): number {
  const ctx = { ...makeContext(), window: SMALL.window };
  const r = compactTranscript(input, buildSteps(parseCompactConfig(SMALL)), ctx);
  expectInvariants(input, r.transcript);
  const back = restoreTranscript(JSON.parse(JSON.stringify(r.transcript)) as Transcript, ctx.refs!);
  if (!back.ok) throw new Error(back.error.message);
  expect(JSON.stringify(back.value) === JSON.stringify(input), `restore of ${input.id}`).toBe(true);
  return r.tokensBefore - r.tokensAfter;
}
