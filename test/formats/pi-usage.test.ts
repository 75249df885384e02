import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readInputs } from '../../src/formats/read-inputs.js';
import { isAssistant } from '../../src/model/message.js';
import { isUnpricedRequest } from '../../src/model/recorded.js';
import type { Transcript } from '../../src/model/transcript.js';
import { recordedPromptTokens, recordedUsage } from '../../src/replay/billing/recorded-usage.js';
import { resolvePolicy } from '../../src/replay/policies/resolve.js';
import { ReplayOptionsSchema } from '../../src/replay/replay-options.js';
import { replayTranscript } from '../../src/replay/transcript-replay.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { expectSourceReplayWithin5Percent } from '../helpers/source-replay.js';
import { READ, collect, errorsOf, transcriptsOf } from './helpers.js';

// Sessions laid out as pi and OpenClaw lay them out, with the usage a provider would report for the prompt pi builds
// (test/fixtures/pi/generate.mjs).
const PI = join(import.meta.dirname, '..', 'fixtures', 'pi', 'sessions');
const OPENCLAW = join(import.meta.dirname, '..', 'fixtures', 'openclaw');

/**
 * Per session: `npx -y ccusage@20.0.24 pi session --json --offline` with PI_AGENT_DIR at test/fixtures/pi/sessions,
 * and `npx -y ccusage@20.0.24 openclaw session --json --offline` with OPENCLAW_DIR at test/fixtures/openclaw (the
 * variables its adapters' paths.rs read): `inputTokens` (uncached), `cacheCreationTokens`, `cacheReadTokens`,
 * `outputTokens` and `totalCost` (pi's own `usage.cost.total`, summed).
 */
const CCUSAGE: Record<string, { input: number; written: number; read: number; output: number; cost: number }> = {
  '0195a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b': { input: 60, written: 24480, read: 47928, output: 328, cost: 0.1112784 },
  '0195a1b2-4d5e-7f60-8b9c-1d2e3f4a5b6c': { input: 6217, written: 0, read: 19910, output: 220, cost: 0.027924 },
  '5e0d1c2b-3a4f-4e5d-9c6b-7a8f9e0d1c2b': { input: 24, written: 5032, read: 5008, output: 89, cost: 0.0217794 },
  '6f1e2d3c-4b5a-4968-8776-655443322110': { input: 24, written: 3715, read: 7292, output: 89, cost: 0.01752585 },
  '7a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d': { input: 6, written: 2420, read: 0, output: 25, cost: 0.009468 },
  '1a7b0c9d-8e2f-4a3b-9c4d-5e6f70819a2b': { input: 6, written: 2402, read: 0, output: 13, cost: 0.0092205 },
  '2b8c1d0e-9f3a-4b5c-8d6e-7f8091a2b3c4': { input: 2443, written: 0, read: 2412, output: 46, cost: 0.0087426 },
  '3c9d2e1f-0a4b-4c6d-8e7f-9a0b1c2d3e4f': { input: 30, written: 5012, read: 12181, output: 129, cost: 0.0244743 },
};

async function sessions(): Promise<Transcript[]> {
  const items = await collect(readInputs([PI, OPENCLAW], READ));
  expect(errorsOf(items)).toEqual([]);
  return transcriptsOf(items).map((i) => i.transcript);
}

const calls = (t: Transcript) => t.messages.filter(isAssistant).filter((m) => m.usage !== undefined && !isUnpricedRequest(m));

describe('pi and OpenClaw usage as recorded', () => {
  it('reads the usage ccusage reads, session for session', async () => {
    const all = await sessions();
    expect(all.map((t) => t.id).sort()).toEqual(Object.keys(CCUSAGE).sort());
    for (const t of all) {
      const oracle = CCUSAGE[t.id];
      expect(recordedUsage(t), t.id).toMatchObject({
        input: oracle.input + oracle.written + oracle.read,
        uncachedInput: oracle.input,
        cacheCreation: oracle.written,
        cacheRead: oracle.read,
        output: oracle.output,
      });
      const cost = calls(t).reduce((n, m) => n + (m.usage?.cost as number), 0);
      expect(cost).toBeCloseTo(oracle.cost, 9);
    }
  });

  // Each call's prompt within 5% of the record's input for that call: after pi's compaction the summary and the entries
  // it kept, on a branch the branch's own path, a failed reply never sent again.
  it.each([1, 'recorded'] as const)('replays every call of every session within 5 percent of its record (token ratio %s)', async (tokenRatio) => {
    const tokenizer = getTokenizer();
    const options = ReplayOptionsSchema.parse({ window: 200_000, basePrompt: 'recorded', tokenRatio });
    for (const t of await sessions()) {
      const { result, prompts } = await replayTranscript(t, { file: t.id, line: 1 }, [resolvePolicy('source', tokenizer)], options, { tokenizer });
      const recorded = calls(t).map((m) => recordedPromptTokens(m) as number);
      expect(prompts.source, t.id).toHaveLength(recorded.length);
      const off = prompts.source.map((p, i) => (p - recorded[i]) / recorded[i]);
      expect(
        off.every((d) => Math.abs(d) <= 0.05),
        `${t.id}: ${off.map((d) => d.toFixed(3)).join(' ')}`,
      ).toBe(true);
      expect(result.policies.source.calls).toBe(recorded.length);
    }
  });

  it('simulate: the source replay within 5% of the recorded input of each session', async () => {
    const rows = await expectSourceReplayWithin5Percent([PI, OPENCLAW]);
    expect(rows).toHaveLength(Object.keys(CCUSAGE).length);
  });
});
