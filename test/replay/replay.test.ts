import { describe, expect, it } from 'vitest';
import { ContextManager } from '../../src/context/context-manager.js';
import { checkpointMiddle } from '../../src/replay/policies/built-in.js';
import { modelRates } from '../../src/replay/billing/prices.js';
import { recordedCost, recordedUsage } from '../../src/replay/billing/recorded-usage.js';
import { replay } from '../../src/replay/replay.js';
import { CACHE_RULES } from '../../src/provider/cache-rules.js';
import type { Message } from '../../src/model/message.js';
import type { Transcript } from '../../src/model/transcript.js';
import { RefSink } from '../../src/refs/ref-store.js';
import { countTranscript } from '../../src/tokens/breakdown.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { policyEnv } from '../helpers/policy-env.js';

// The heuristic tokenizer counts ceil(chars / 4); every message adds 3 tokens of framing.
const tok = getTokenizer('heuristic');
const user = (chars: number, c = 'u'): Message => ({ role: 'user', content: c.repeat(chars) });
const assistant = (chars: number): Message => ({ role: 'assistant', content: 'a'.repeat(chars) });

// u0 = 40/4 + 3 = 13, a1 = 8/4 + 3 = 5, u2 = 80/4 + 3 = 23, a3 = 4/4 + 3 = 4, u4 = 160/4 + 3 = 43, a5 = 4
const transcript: Transcript = { id: 'hand', messages: [user(40), assistant(8), user(80), assistant(4), user(160), assistant(4)] };

describe('replay', () => {
  it('bills every earlier message at every call, computed by hand', async () => {
    const stats = await replay(transcript, {}, { tokenizer: tok, window: 1000, cache: CACHE_RULES.ideal });
    expect(stats).toEqual({
      calls: 3,
      billedInput: 13 + (13 + 5 + 23) + (13 + 5 + 23 + 4 + 43), // 13 + 41 + 88 = 142
      // Call 2 shares u0 with call 1; call 3 shares u0, a1, u2 with call 2.
      cachedInput: 13 + 41,
      outputTokens: 5 + 4 + 4,
      compactions: 0,
      microCompactions: 0,
      peakPrompt: 88,
      firstPrompt: 13,
      callsOverHardLimit: 0,
      callsOverWindow: 0,
      stuck: false,
      // The ideal cache writes all it does not read.
      cacheWrites: 142 - (13 + 41),
      // Each call wrote only what was new since the one before.
      rewritten: { cold: 0, edits: 0, other: 0 },
      // No reply names its model: all three calls are the defaults'.
      byModel: {
        '(no model recorded)': { calls: 3, billedInput: 142, cachedInput: 54, cacheWrites: 88, outputTokens: 13, rewritten: { cold: 0, edits: 0, other: 0 } },
      },
    });
  });

  it('bills the compacted prompt after the trigger, and counts the hard limit and the window', async () => {
    // At 50 tokens the handler replaces everything with one 20-character summary: 20/4 + 3 = 8 tokens.
    const summary: Message = { role: 'user', content: 's'.repeat(20) };
    const manager = new ContextManager({ window: 80, compactAtTokens: 50 }, () => ({ messages: [summary], tokens: 8 }));
    const stats = await replay(transcript, { manager }, { tokenizer: tok, window: 80, cache: CACHE_RULES.ideal });
    expect(stats.billedInput).toBe(13 + 41 + 8);
    expect(stats.compactions).toBe(1);
    expect(stats.peakPrompt).toBe(41);
    // Call 3's prompt [summary] shares nothing with call 2's: only call 2 read from the cache.
    expect(stats.cachedInput).toBe(13);
    const none = await replay(transcript, {}, { tokenizer: tok, window: 80, cache: CACHE_RULES.ideal });
    // 88 >= 0.98 x 80 = 78.4, and 88 > 80.
    expect([none.callsOverHardLimit, none.callsOverWindow]).toEqual([1, 1]);
  });

  it('adds the unrecorded base prompt to every call, always cached', async () => {
    const stats = await replay(transcript, {}, { tokenizer: tok, window: 1000, cache: CACHE_RULES.ideal, basePrompt: 100 });
    expect(stats.billedInput).toBe(142 + 3 * 100);
    expect(stats.cachedInput).toBe(54 + 2 * 100);
  });

  it('bills unlogged tokens with their message at every later call, and keeps them out of what the policies count', async () => {
    // 100 unlogged tokens came with u2 (index 2): calls 3 (index 3) and 5 (index 5) carry them.
    const seen: number[] = [];
    const micro = (p: { messages: readonly Message[]; tokens: number }) => {
      seen.push(p.tokens);
      return Promise.resolve({ messages: p.messages, tokens: p.tokens });
    };
    const stats = await replay(transcript, { micro } as never, {
      tokenizer: tok,
      window: 1000,
      cache: CACHE_RULES.ideal,
      unlogged: [{ at: 2, tokens: 100, from: 3 }],
    });
    expect([stats.billedInput, stats.cachedInput, stats.cacheWrites, stats.peakPrompt]).toEqual([142 + 200, 13 + 141, 342 - 154, 188]);
    expect(seen).toEqual([13, 41, 88]);
  });

  it('leaves out the summary of a compaction the source made itself', async () => {
    const withSummary: Transcript = {
      id: 's',
      messages: [user(40), { role: 'user', content: 'x'.repeat(400), is_compact_summary: true } as Message, assistant(4)],
    };
    expect((await replay(withSummary, {}, { tokenizer: tok, window: 1000, cache: CACHE_RULES.ideal })).billedInput).toBe(13);
  });

  it('sums the same prompts as counting each prefix from scratch, on o200k_base', async () => {
    const exact = getTokenizer('o200k_base');
    const t: Transcript = {
      id: 'x',
      messages: [
        { role: 'system', content: 'You are terse.' },
        user(37, 'q'),
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'Read', arguments: '{"file_path":"/a.ts"}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'export const a = 1;\n'.repeat(20) },
        { role: 'assistant', content: 'Done.' },
      ],
    };
    const stats = await replay(t, {}, { tokenizer: exact, window: 100_000, cache: CACHE_RULES.ideal });
    const prefix = (n: number) => countTranscript({ id: 'p', messages: t.messages.slice(0, n) }, exact).total;
    expect(stats.billedInput).toBe(prefix(2) + prefix(4));
  });
});

describe("checkpointMiddle (the seeds' compaction)", () => {
  const call = (id: string): Message => ({
    role: 'assistant',
    content: null,
    tool_calls: [{ id, type: 'function', function: { name: 'Bash', arguments: JSON.stringify({ command: `echo ${id}` }) } }],
  });
  const result = (id: string): Message => ({ role: 'tool', tool_call_id: id, content: `output of ${id} `.repeat(30) });
  const messages: Message[] = [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'Start the work.' },
  ];
  for (let i = 0; i < 12; i++) messages.push(call(`c${i}`), result(`c${i}`));
  messages.push({ role: 'user', content: 'Now finish it.' }, call('d0'), result('d0'), call('d1'), result('d1'));
  const env = policyEnv({ tokenizer: getTokenizer('o200k_base'), window: 100_000 });

  it('keeps the first 3 and the last 10 messages around one checkpoint, never splitting a call from its result', async () => {
    const out = await checkpointMiddle(3, 10, env, new RefSink())({ messages, tokens: 0, window: 100_000, reason: 'threshold' });
    // Message 3 is the result of the call in message 2: it stays with its call, before the checkpoint.
    expect(out.messages.slice(0, 4)).toEqual(messages.slice(0, 4));
    // The 10th message from the end is a tool result: the tail starts one earlier, at its call.
    expect(messages[messages.length - 10].role).toBe('tool');
    expect(out.messages.slice(-11)).toEqual(messages.slice(-11));
    expect(out.messages).toHaveLength(4 + 1 + 11);
    const checkpoint = out.messages[4] as { role: string; content: string };
    expect(checkpoint.role).toBe('user');
    expect(checkpoint.content.startsWith('[tcompact checkpoint of ')).toBe(true);
    expect(out.tokens).toBe(countTranscript({ id: 'o', messages: out.messages }, env.tokenizer).total);
  });

  it('keeps the system prompt and moves the last user request after the checkpoint of everything else', async () => {
    const out = await checkpointMiddle('system', 'last-request', env, new RefSink())({ messages, tokens: 0, window: 100_000, reason: 'threshold' });
    expect(out.messages).toHaveLength(3);
    expect(out.messages[0]).toBe(messages[0]);
    expect((out.messages[1] as { content: string }).content).toContain('echo d1');
    expect(out.messages[2]).toBe(messages[messages.length - 5]);
  });
});

describe('recordedUsage', () => {
  it('reads Claude Code (Anthropic) and Codex (OpenAI) usage records and prices them', () => {
    const t: Transcript = {
      id: 'u',
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: 'a',
          usage: { input_tokens: 3, cache_creation_input_tokens: 1000, cache_read_input_tokens: 20_000, output_tokens: 50 },
        } as Message,
        { role: 'assistant', content: 'b', usage: { input_tokens: 30_000, cached_input_tokens: 25_000, output_tokens: 100 } } as Message,
        { role: 'assistant', content: 'c' },
      ],
    };
    const r = recordedUsage(t)!;
    expect(r).toEqual({
      calls: 2,
      input: 51_003,
      uncachedInput: 5_003,
      cacheCreation: 1000,
      cacheRead: 45_000,
      output: 150,
      firstCallInput: 21_003,
      cacheCreation1h: 0,
    });
    // Default prices per million: input 3, cache write 3.75, cache read 0.30, output 15.
    const cost = recordedCost(r, modelRates({}));
    expect(cost.withoutCache).toBeCloseTo((51_003 * 3 + 150 * 15) / 1e6, 12);
    expect(cost.withCache).toBeCloseTo((5_003 * 3 + 1000 * 3.75 + 45_000 * 0.3 + 150 * 15) / 1e6, 12);
    expect(recordedUsage({ id: 'n', messages: [{ role: 'assistant', content: 'x' }] })).toBeUndefined();
  });
});
