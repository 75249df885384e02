import { describe, expect, it } from 'vitest';
import { type EditReason, ContextManager } from '../../src/context/context-manager.js';
import { EditLedger } from '../../src/context/edit-ledger.js';
import type { Message } from '../../src/model/message.js';
import type { Transcript } from '../../src/model/transcript.js';
import { countMessage, countTranscript, totalOf } from '../../src/tokens/breakdown.js';
import { type Tokenizer, getTokenizer } from '../../src/tokens/tokenizer.js';
import { bundledTranscripts } from '../helpers/bundled-transcripts.js';

const tok = getTokenizer('o200k_base');

let largest: Promise<Transcript> | undefined;

/** The largest bundled Claude Code session: many tool results, as an agent loop sees them. Read once; each test gets its own copy. */
async function session(): Promise<Transcript> {
  largest ??= readLargest();
  return structuredClone(await largest);
}

async function readLargest(): Promise<Transcript> {
  const all = (await bundledTranscripts('claude-code')).filter((t) => (t.metadata?.source as { format?: string } | undefined)?.format === 'claude-code');
  return all.reduce((a, b) => (b.messages.length > a.messages.length ? b : a));
}

interface Step {
  reason: EditReason;
  before: readonly Message[];
  /** The tokens the check was given for `before`. */
  tokens: number;
  after: readonly Message[];
}

/**
 * Drives a manager over the session as an agent loop would: before each reply, the prompt so far and its tokens,
 * `gapMs` apart. The tokens are counted as an agent loop counts them, message by message: what a call adds, and the
 * whole prompt again only where the manager changed it.
 */
async function drive(t: Transcript, manager: ContextManager, gapMs: (call: number) => number): Promise<Step[]> {
  const steps: Step[] = [];
  let prompt: Message[] = [];
  let tokens = 0;
  let at = 0;
  for (const m of t.messages) {
    if (m.role === 'assistant') {
      at += gapMs(steps.length);
      const r = await manager.check({ messages: prompt, tokens, at });
      steps.push({ reason: r.reason, before: prompt, tokens, after: r.messages });
      if (r.messages !== prompt) tokens = countTranscript({ id: 'p', messages: [...r.messages] }, tok).total;
      prompt = [...r.messages];
    }
    prompt.push(m);
    tokens += totalOf(countMessage(m, tok));
  }
  return steps;
}

describe('the cache-aware ContextManager (the default)', () => {
  it('edits on a call whose cache went cold, and says so', async () => {
    const t = await session();
    // One gap of an hour in a session of 10-second gaps; a warm edit never pays (expectedCalls tiny).
    const steps = await drive(t, new ContextManager({ window: 1_000_000, expectedCalls: 1e-9 }), (c) => (c === 150 ? 3_600_000 : 10_000));
    const edits = steps.flatMap((s, i) => (s.after !== s.before ? [[i, s.reason] as const] : []));
    expect(edits).toEqual([[150, 'cold']]);
    expect(steps.filter((s) => s.reason === 'none')).toHaveLength(steps.length - 1);
  });

  it('edits a warm prompt only when what it frees pays for the rewrite over the calls expected', async () => {
    const t = await session();
    const warm = () => 10_000;
    const never = await drive(t, new ContextManager({ window: 1_000_000, expectedCalls: 1e-9 }), warm);
    expect(never.filter((s) => s.reason !== 'none' || s.after !== s.before).map((s) => s.reason)).toEqual([]);
    const often = await drive(t, new ContextManager({ window: 1_000_000, expectedCalls: 1e9 }), warm);
    const paying = often.filter((s) => s.reason === 'pays-off');
    expect(paying.length).toBeGreaterThan(3);
    expect(paying.every((s) => s.after !== s.before)).toBe(true);
  });

  it('never changes a message before the last edit’s boundary, and keeps placeholders stable', async () => {
    const t = await session();
    const steps = await drive(t, new ContextManager({ window: 1_000_000, expectedCalls: 1e9 }), () => 10_000);
    let frozen: readonly Message[] = [];
    for (const s of steps) {
      // Everything the previous edit left before its boundary is sent again as the very same objects.
      for (let i = 0; i < frozen.length; i++) expect(s.after[i]).toBe(frozen[i]);
      if (s.after !== s.before) {
        const firstChanged = s.after.findIndex((m, i) => m !== s.before[i]);
        frozen = s.after.slice(0, firstChanged);
      }
    }
  });

  it('is given, at every call, the tokens of the whole prompt: the count kept call by call is the count of the prompt', async () => {
    const t = await session();
    const steps = await drive(t, new ContextManager({ window: 1_000_000, expectedCalls: 1e9 }), () => 10_000);
    expect(steps.some((s) => s.after !== s.before)).toBe(true);
    for (const s of steps) expect(s.tokens).toBe(countTranscript({ id: 'p', messages: [...s.before] }, tok).total);
  });

  it('compacts at the trigger, saying why', async () => {
    const t = await session();
    const steps = await drive(t, new ContextManager({ window: 20_000, edits: [] }), () => 10_000);
    expect(steps.some((s) => s.reason === 'window')).toBe(true);
  });

  it('masks on every call only when micro-compaction is asked for', async () => {
    const t = await session();
    const micro = await drive(t, new ContextManager({ window: 1_000_000, micro: ['mask-observations'], edits: [] }), () => 10_000);
    const plain = await drive(t, new ContextManager({ window: 1_000_000, edits: [] }), () => 10_000);
    expect(micro.filter((s) => s.after !== s.before).length).toBeGreaterThan(10);
    expect(plain.every((s) => s.after === s.before)).toBe(true);
  });
});

describe('EditLedger', () => {
  it('counts only the messages that are new since the last check', async () => {
    const t = await session();
    let counted = 0;
    const counting: Tokenizer = { name: tok.name, engine: tok.engine, count: (text) => (counted++, tok.count(text)) };
    const ledger = new EditLedger(counting, { keepLast: 0, keepResults: 10, keepMessages: 10 });
    const prompt: Message[] = [];
    const perCheck: number[] = [];
    for (const m of t.messages) {
      prompt.push(m);
      const before = counted;
      ledger.observe(prompt);
      ledger.estimate();
      perCheck.push(counted - before);
    }
    // Each check encodes only the one message added since the previous one (a message's count is memoized once).
    expect(Math.max(...perCheck)).toBeLessThanOrEqual(Math.max(...t.messages.map((m) => JSON.stringify(m).length)));
    expect(perCheck.reduce((a, b) => a + b, 0)).toBeLessThan(4 * t.messages.length);
  });
});
