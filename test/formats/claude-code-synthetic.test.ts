import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readClaudeCode } from '../../src/formats/claude-code.js';
import { isSyntheticReply } from '../../src/model/recorded.js';
import type { Transcript } from '../../src/model/transcript.js';
import { recordedUsage } from '../../src/replay/billing/recorded-usage.js';
import { unloggedGrowth } from '../../src/replay/billing/token-ratio.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { runMain } from '../helpers/cli-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';
import { READ, collect, transcriptsOf } from './helpers.js';

/** A usage-limit notice before the first call and "No response requested." after an interrupt (see SOURCE.md). */
const FILE = join(import.meta.dirname, '..', 'fixtures', 'claude-code', 'synthetic-replies.jsonl');
const MODEL = 'claude-sonnet-4-5-20250929';
/** The four replies a model answered, and the first one's whole input. */
const CALLS = 4;
const FIRST_CALL_INPUT = 3 + 20_100;

describe('Claude Code synthetic replies (model <synthetic>, usage all 0, no requestId)', () => {
  let transcript: Transcript;
  beforeAll(async () => {
    [{ transcript }] = transcriptsOf(await collect(readClaudeCode(FILE, READ)));
  });

  it('stay in the transcript, marked, and are no model of the session', () => {
    const synthetic = transcript.messages.filter(isSyntheticReply);
    expect(synthetic.map((m) => m.content)).toEqual(["You've hit your limit · resets 3pm (UTC)", 'No response requested.']);
    expect(transcript.messages.filter((m) => m.role === 'assistant')).toHaveLength(CALLS + 2);
    expect(transcript.metadata?.models).toEqual([MODEL]);
  });

  it('are no recorded call: the first call is the first a model answered', () => {
    const usage = recordedUsage(transcript);
    expect(usage?.calls).toBe(CALLS);
    expect(usage?.firstCallInput).toBe(FIRST_CALL_INPUT);
  });

  it('are no interval of the token scale: no growth is measured from their zero usage', () => {
    const unlogged = unloggedGrowth(transcript, getTokenizer('o200k_base'), { ratio: 1, framing: 0 });
    expect(unlogged.filter((span) => span.tokens > 1_000)).toEqual([]);
  });

  it('are neither billed nor a model in simulate, and the recorded base prompt is the first real call', async () => {
    const out = tempDir('synthetic');
    const run = await runMain(['simulate', FILE, '--policy', 'source', '--base-prompt', 'recorded', '--token-ratio', 'recorded', '--out', out]);
    expect([run.code, run.stderr]).toEqual([0, '']);
    const [t] = JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8')).perTranscript;
    for (const name of ['none', 'source']) {
      expect(t.policies[name].calls).toBe(CALLS);
      expect(Object.keys(t.policies[name].byModel)).toEqual([MODEL]);
    }
    expect(Object.keys(t.recorded.byModel)).toEqual([MODEL]);
    expect(t.basePrompt).toBeGreaterThan(FIRST_CALL_INPUT - 100);
    // The first replayed prompt is the first recorded one, not the synthetic reply's 0.
    expect(t.policies.source.firstPrompt).toBeGreaterThan(FIRST_CALL_INPUT - 100);
  });

  it('are counted apart by stats, which says how many it left out of the calls', async () => {
    const json = await runMain(['stats', FILE, '--json']);
    const stats = JSON.parse(json.stdout);
    expect(stats.transcripts[0].syntheticReplies).toBe(2);
    expect(stats.total.syntheticReplies).toBe(2);
    expect(stats.recordedUsage.recorded.calls).toBe(CALLS);
    const text = await runMain(['stats', FILE]);
    expect(text.stdout).toContain('2 synthetic replies (written by the client, no model call) left out of the calls');
  });
});
