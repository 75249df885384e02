import { describe, expect, it } from 'vitest';
import type { CompactionRequest } from '../../src/context/compaction-handler.js';
import { ContextManager } from '../../src/context/context-manager.js';
import { parseContextManagerOptions } from '../../src/context/options.js';
import { join } from 'node:path';
import { readInputs } from '../../src/formats/read-inputs.js';
import type { Message } from '../../src/model/message.js';
import { findViolations, lastUserRequestIndex } from '../../src/model/validity.js';
import { countTranscript } from '../../src/tokens/breakdown.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { BUNDLED } from '../helpers/paths.js';

const msgs = (n: number): Message[] => Array.from({ length: n }, (_, i) => ({ role: 'user', content: `m${i}` }));

/** A handler that keeps the last message and reports a fixed size; records every request. */
function recorder(tokensAfter: number) {
  const calls: CompactionRequest[] = [];
  const handler = (r: CompactionRequest) => {
    calls.push(r);
    return { messages: r.messages.slice(-1), tokens: tokensAfter };
  };
  return { calls, handler };
}

describe('ContextManager options', () => {
  it('rejects thresholds that are not ascending, with exact messages', () => {
    expect(() => parseContextManagerOptions({ window: 1000, thresholds: { warning: 0.9, compaction: 0.8 } })).toThrow(
      'thresholds.compaction: must be above warning (0.9), got 0.8',
    );
    expect(() => parseContextManagerOptions({ window: 1000, thresholds: { hardLimit: 0.85 } })).toThrow(
      'thresholds.hardLimit: must be above compaction (0.9), got 0.85',
    );
    expect(() => parseContextManagerOptions({ window: 0 })).toThrow('window: Too small: expected number to be >0');
    expect(() => parseContextManagerOptions({ window: 10, mode: 'sometimes' })).toThrow('mode: Invalid option: expected one of "auto"|"approval"|"manual"');
    expect(() => parseContextManagerOptions({ window: 10, cooldwn: 1 })).toThrow('Unrecognized key: "cooldwn"');
  });

  it('fills every default', () => {
    expect(parseContextManagerOptions({ window: 1000 })).toEqual({
      window: 1000,
      thresholds: { warning: 0.8, compaction: 0.9, hardLimit: 0.98 },
      mode: 'auto',
      cooldown: 0,
      maxAttempts: 3,
      cache: 'anthropic-5m',
      edits: ['mask-observations'],
      editTail: { results: 1, messages: 1 },
      expectedCalls: 50,
      micro: [],
      strategies: ['auto'],
      tokenizer: 'o200k_base',
      extraTokens: 0,
    });
  });
});

describe('ContextManager.check', () => {
  it('reports ok, warning and hard_limit by share of the window in manual mode, never compacting', async () => {
    const { calls, handler } = recorder(10);
    const cm = new ContextManager({ window: 1000, mode: 'manual' }, handler);
    expect(await cm.check({ messages: msgs(2), tokens: 799 })).toEqual({
      status: 'ok',
      messages: msgs(2),
      tokens: 799,
      share: 0.799,
      microCompacted: false,
      reason: 'none',
    });
    expect((await cm.check({ messages: msgs(2), tokens: 800 })).status).toBe('warning');
    expect((await cm.check({ messages: msgs(2), tokens: 950 })).status).toBe('warning');
    expect((await cm.check({ messages: msgs(2), tokens: 980 })).status).toBe('hard_limit');
    expect(calls).toHaveLength(0);
    // A manual compaction runs the handler whatever the size.
    const r = await cm.compact({ messages: msgs(3), tokens: 500 });
    expect(r).toEqual({
      status: 'compacted',
      messages: [{ role: 'user', content: 'm2' }],
      tokens: 10,
      tokensBefore: 500,
      share: 0.01,
      microCompacted: false,
      reason: 'none',
    });
    expect(calls.map((c) => c.reason)).toEqual(['requested']);
  });

  it('compacts in auto mode once the prompt reaches the compaction threshold, and passes the window', async () => {
    const { calls, handler } = recorder(100);
    const cm = new ContextManager({ window: 1000 }, handler);
    expect((await cm.check({ messages: msgs(3), tokens: 899 })).status).toBe('warning');
    const r = await cm.check({ messages: msgs(3), tokens: 900 });
    expect(r).toEqual({
      status: 'compacted',
      messages: [{ role: 'user', content: 'm2' }],
      tokens: 100,
      tokensBefore: 900,
      share: 0.1,
      microCompacted: false,
      reason: 'window',
    });
    expect(calls).toEqual([{ messages: msgs(3), tokens: 900, window: 1000, reason: 'threshold' }]);
    expect(cm.state).toEqual({ compactions: 1, microCompactions: 0, failedAttempts: 0, stuck: false, cooldownLeft: 0 });
  });

  it('waits out the cooldown after a compaction', async () => {
    const { calls, handler } = recorder(100);
    const cm = new ContextManager({ window: 1000, cooldown: 2 }, handler);
    const statuses: string[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await cm.check({ messages: msgs(2), tokens: 990 })).status);
    expect(statuses).toEqual(['compacted', 'hard_limit', 'hard_limit', 'compacted']);
    expect(calls).toHaveLength(2);
  });

  it('gives up after maxAttempts attempts in a row that stay above the trigger', async () => {
    const { calls, handler } = recorder(950); // saves tokens, but stays above 0.9 x 1000
    const cm = new ContextManager({ window: 1000, maxAttempts: 2 }, handler);
    const statuses: string[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await cm.check({ messages: msgs(2), tokens: 960 })).status);
    expect(statuses).toEqual(['compacted', 'compacted', 'warning', 'warning']);
    expect(calls).toHaveLength(2);
    expect(cm.state).toEqual({ compactions: 2, microCompactions: 0, failedAttempts: 2, stuck: true, cooldownLeft: 0 });
  });

  it('does not report a compaction that saved nothing, and counts it as a failed attempt', async () => {
    const { handler } = recorder(990);
    const cm = new ContextManager({ window: 1000, maxAttempts: 1 }, handler);
    expect(await cm.check({ messages: msgs(2), tokens: 985 })).toEqual({
      status: 'hard_limit',
      messages: msgs(2),
      tokens: 985,
      share: 0.985,
      microCompacted: false,
      reason: 'window',
    });
    expect(cm.state.stuck).toBe(true);
    expect(cm.state.compactions).toBe(0);
  });

  it('asks for approval in approval mode, and a decline starts the cooldown', async () => {
    const { calls, handler } = recorder(100);
    const cm = new ContextManager({ window: 1000, mode: 'approval', cooldown: 1 }, handler);
    expect((await cm.check({ messages: msgs(2), tokens: 920 })).status).toBe('needs_approval');
    cm.decline();
    expect((await cm.check({ messages: msgs(2), tokens: 930 })).status).toBe('warning');
    expect((await cm.check({ messages: msgs(2), tokens: 940 })).status).toBe('needs_approval');
    expect((await cm.compact({ messages: msgs(2), tokens: 940 })).status).toBe('compacted');
    expect(calls.map((c) => c.reason)).toEqual(['requested']);
  });

  it('triggers at an absolute token count when compactAtTokens is set', async () => {
    const { handler } = recorder(10);
    const cm = new ContextManager({ window: 1_000_000, compactAtTokens: 200_000 }, handler);
    expect((await cm.check({ messages: msgs(2), tokens: 199_999 })).status).toBe('ok');
    expect((await cm.check({ messages: msgs(2), tokens: 200_000 })).status).toBe('compacted');
  });

  it('accepts an async handler (an LLM summary)', async () => {
    const cm = new ContextManager({ window: 100 }, async (r) => ({ messages: [{ role: 'user', content: `summary of ${r.messages.length}` }], tokens: 5 }));
    const r = await cm.check({ messages: msgs(4), tokens: 95 });
    expect(r.status === 'compacted' && r.messages).toEqual([{ role: 'user', content: 'summary of 4' }]);
  });
});

let longSessionRead: Promise<Message[]> | undefined;

/** The long bundled Claude Code session's messages, read once for the file (a manager does not change what it is given). */
function longSession(): Promise<Message[]> {
  longSessionRead ??= (async () => {
    let messages: Message[] = [];
    for await (const item of readInputs([join(BUNDLED, 'claude-code', 'ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl')], { maxLineBytes: 1 << 26 })) {
      if (item.kind === 'transcript') messages = item.transcript.messages;
    }
    return messages;
  })();
  return longSessionRead;
}

describe('ContextManager with its default options (bundled Claude Code session)', () => {
  it('micro-compacts old tool results on every check and compacts with auto at the trigger, keeping the last request', async () => {
    const messages = await longSession();
    const tok = getTokenizer('o200k_base');
    const count = (m: readonly Message[]) => countTranscript({ id: 'c', messages: [...m] }, tok).total;
    const total = count(messages);
    // Below the trigger: only micro-compaction, which masks old large results.
    const small = new ContextManager({ window: total * 2 });
    const micro = await small.check({ messages, tokens: total });
    expect(micro.status).toBe('ok');
    expect(micro.microCompacted).toBe(true);
    expect(micro.tokens).toBeLessThan(total);
    expect(small.state).toMatchObject({ compactions: 0, microCompactions: 1 });
    // A window the masked prompt still overflows: auto's checkpoint compacts inside the long last turn.
    const tight = new ContextManager({ window: Math.floor(micro.tokens / 2) });
    const r = await tight.check({ messages, tokens: total });
    expect(r.status).toBe('compacted');
    expect(r.tokens).toBeLessThan(tight.triggerTokens);
    expect(findViolations([...r.messages])).toEqual([]);
    expect(r.messages[lastUserRequestIndex(r.messages)]).toBe(messages[lastUserRequestIndex(messages)]);
    expect(tight.state).toMatchObject({ compactions: 1, stuck: false });
  });

  it('counts with the tokenizer it is given (a replay scaled to its provider), which must count as the options name', async () => {
    const messages = await longSession();
    const tok = getTokenizer('o200k_base');
    const doubled = { ...tok, count: (text: string) => 2 * tok.count(text) };
    const total = countTranscript({ id: 'c', messages }, tok).total;
    const plain = await new ContextManager({ window: total * 4 }).check({ messages, tokens: total });
    const scaled = await new ContextManager({ window: total * 4 }, undefined, doubled).check({ messages, tokens: 2 * total });
    // The same messages masked either way; the scaled manager's sizes are about twice the plain one's.
    expect(scaled.messages.length).toBe(plain.messages.length);
    expect(scaled.tokens / plain.tokens).toBeGreaterThan(1.9);
    expect(() => new ContextManager({ window: 1000 }, undefined, getTokenizer('heuristic'))).toThrow(
      'ContextManager: the tokenizer given counts heuristic, the options name o200k_base',
    );
  });

  it('refuses an unknown strategy name at construction', () => {
    expect(() => new ContextManager({ window: 1000, micro: ['nope'] })).toThrow('unknown strategy "nope"');
  });
});
