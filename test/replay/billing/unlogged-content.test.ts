import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readInputs } from '../../../src/formats/read-inputs.js';
import type { Message } from '../../../src/model/message.js';
import { isModelCall } from '../../../src/model/recorded.js';
import type { Transcript } from '../../../src/model/transcript.js';
import { recordedPromptTokens } from '../../../src/replay/billing/recorded-usage.js';
import { measureTokenScale, unloggedGrowth } from '../../../src/replay/billing/token-ratio.js';
import { resolvePolicy } from '../../../src/replay/policies/resolve.js';
import { ReplayOptionsSchema } from '../../../src/replay/replay-options.js';
import { replayTranscript } from '../../../src/replay/transcript-replay.js';
import { getTokenizer } from '../../../src/tokens/tokenizer.js';
import { READ } from '../../formats/helpers.js';

// One session per agent, each call's input computed from its messages, with one jump that only one call's input shows
// and the next call's takes back (test/fixtures/unlogged-content/SOURCE.md).
const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'unlogged-content');
const SESSIONS = {
  'Claude Code': { file: join('claude-code', '7e1d2c3b-0001-4a5b-8c9d-0e1f2a3b4c01.jsonl'), jump: 6000 },
  Codex: { file: join('codex', 'rollout-2026-06-02T09-00-00-019d0a1b-2c3d-7e4f-8a9b-0c1d2e3f4a01.jsonl'), jump: 6000 },
  'Gemini CLI': { file: join('gemini', 'session-2026-06-01T11-00-6d0c5b4a.json'), jump: 8000 },
};
const tok = getTokenizer('o200k_base');

async function read(file: string): Promise<Transcript> {
  for await (const item of readInputs([join(FIXTURES, file)], READ)) if (item.kind === 'transcript') return item.transcript;
  throw new Error(`no transcript in ${file}`);
}

/** Indices of the replies whose recorded input is above zero, in order. */
const recordedCalls = (messages: readonly Message[]) => messages.flatMap((m, i) => (m.role === 'assistant' && (recordedPromptTokens(m) ?? 0) > 0 ? [i] : []));

describe('unlogged content is carried only while later records show it, for every agent', { timeout: 60_000 }, () => {
  for (const [agent, { file, jump }] of Object.entries(SESSIONS)) {
    it(`${agent}: a one-off jump is billed at the one call that showed it, and the replay bills the recorded input`, async () => {
      const transcript = await read(file);
      const scale = measureTokenScale(transcript, tok)!;
      expect(scale.ratio).toBeCloseTo(1.1, 1);
      const calls = recordedCalls(transcript.messages);
      const inputs = calls.map((i) => recordedPromptTokens(transcript.messages[i])!);
      // The call that shows the jump is the one whose input exceeds both neighbours'.
      const k = inputs.findIndex((n, i) => i > 0 && n > inputs[i - 1] + jump / 2 && n > inputs[i + 1]);
      const [span, ...others] = unloggedGrowth(transcript, tok, scale);
      expect(others).toEqual([]);
      expect(span.from).toBe(calls[k]);
      expect(span.until).toBe(calls[k + 1]);
      expect(Math.abs(span.tokens - jump)).toBeLessThan(jump * 0.05);

      const options = ReplayOptionsSchema.parse({ policies: ['source'], window: 1_000_000, basePrompt: 'recorded', tokenRatio: 'recorded' });
      const { result, prompts } = await replayTranscript(transcript, { file, line: 1 }, [resolvePolicy('source', tok)], options, { tokenizer: tok });
      expect(result.tokenScale!.unlogged).toMatchObject({ messages: 1, billed: span.tokens });
      // A synthetic reply is no call (the Claude Code reader marks it): every replayed call is one the record measured.
      const replies = transcript.messages.flatMap((m, i) => (isModelCall(m) ? [i] : []));
      expect(replies).toEqual(calls);
      const measured = prompts.source.reduce((a, b) => a + b, 0);
      expect(Math.abs(measured / result.recorded!.input - 1)).toBeLessThan(0.05);
    });
  }

  it('Claude Code: growth is never measured from the synthetic reply with all-zero usage, even unmarked', async () => {
    const read_ = await read(SESSIONS['Claude Code'].file);
    // The rule holds on its own: without the reader's mark the reply's all-zero usage reads as a prompt of 0 tokens.
    const transcript = { ...read_, messages: read_.messages.map(({ is_synthetic: _marked, ...m }) => m as Message) };
    const synthetic = transcript.messages.findIndex((m) => m.role === 'assistant' && m.model === '<synthetic>');
    expect(synthetic).toBeGreaterThan(0);
    expect(recordedPromptTokens(transcript.messages[synthetic])).toBe(0);
    const spans = unloggedGrowth(transcript, tok, measureTokenScale(transcript, tok)!);
    expect(spans.every((s) => s.at < synthetic || s.tokens < 10_000)).toBe(true);
    expect(spans.reduce((n, s) => n + s.tokens, 0)).toBeLessThan(SESSIONS['Claude Code'].jump * 1.05);
  });
});
