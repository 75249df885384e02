import { describe, expect, it } from 'vitest';
import type { ToolMessage } from '../../src/model/message.js';
import { errorLine, isFailedResult } from '../../src/model/tool-outcome.js';
import { findViolations } from '../../src/model/validity.js';
import { RefSink, refOf } from '../../src/refs/ref-store.js';
import { scaledTokenizer } from '../../src/replay/billing/token-ratio.js';
import { maskObservations } from '../../src/strategies/mask-observations.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { assistant, call, expectIdempotent, makeContext, result, run, transcript, user, LAST_TURN_MASK } from '../helpers/transcript-kit.js';

const big = (word: string) => `${word}\n${'line of output '.repeat(60)}`; // 901+ bytes
const masked = (tool: string, content: unknown) => `[Previous: used ${tool}] (ref: ${refOf(JSON.stringify(content))})`;

/** Five tool results in the middle turn, one in the last turn. */
function session() {
  return transcript([
    user('fix the bug'),
    assistant(null, { tool_calls: [call('r1', 'Read', { file_path: 'a.ts' }), call('r2', 'Bash', { command: 'ls' })] }),
    result('r1', big('A')),
    result('r2', 'short'),
    assistant(null, { tool_calls: [call('t1', 'TodoWrite', { todos: [] })] }),
    result('t1', big('T')),
    assistant(null, { tool_calls: [call('r3', 'Grep', { pattern: 'x' })] }),
    result('r3', [{ type: 'text', text: big('G') }]),
    assistant(null, { tool_calls: [call('r4', 'Read', { file_path: 'b.ts' })] }),
    result('r4', big('B')),
    user('and now?'),
    assistant(null, { tool_calls: [call('r5', 'Read', { file_path: 'c.ts' })] }),
    result('r5', big('C')),
    assistant('done'),
  ]);
}

describe('mask-observations', () => {
  it('accepts {} with documented defaults and rejects unknown options', () => {
    const config = maskObservations.config.parse({});
    expect(config).toMatchObject({ keepLast: 0, keepMessages: 10, keepResults: 10, minBytes: 800 });
    expect(config.toolHints.TodoWrite.maskExempt).toBe(true);
    expect(maskObservations.config.safeParse({ minbytes: 1 }).success).toBe(false);
  });

  it('masks old large results with a ref to the original, keeping small, exempt, recent and kept-turn results', () => {
    const before = session();
    const ctx = makeContext();
    const r = run(maskObservations, before, { ...LAST_TURN_MASK, keepResults: 2 }, ctx);
    const expected = session();
    expected.messages[2] = result('r1', masked('Read', big('A')));
    expected.messages[7] = result('r3', masked('Grep', [{ type: 'text', text: big('G') }]));
    expect(r.transcript).toEqual(expected);
    expect(r).toMatchObject({ messagesChanged: 2, messagesRemoved: 0 });
    expect(r.details?.resultsMasked).toBe(2);
    expect(ctx.refs!.get(refOf(JSON.stringify(big('A'))))).toBe(JSON.stringify(big('A')));
    for (const i of [0, 1, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13]) expect(r.transcript.messages[i]).toBe(before.messages[i]);
    expect(findViolations(r.transcript.messages)).toEqual([]);
    expectIdempotent(maskObservations, r.transcript, { ...LAST_TURN_MASK, keepResults: 2 });
  });

  it('counts keepResults over the whole transcript, kept turns included', () => {
    const r = run(maskObservations, session(), { ...LAST_TURN_MASK, keepResults: 1 });
    expect(r.details?.resultsMasked).toBe(3); // r1, r3, r4 (r5 is the most recent and in the last turn)
    expect(run(maskObservations, session(), LAST_TURN_MASK).details?.resultsMasked).toBe(0); // default keepResults 10 covers all six
  });

  it('uses exemptTools instead of the hints when given', () => {
    const r = run(maskObservations, session(), { ...LAST_TURN_MASK, keepResults: 0, exemptTools: ['Read'] });
    expect(r.transcript.messages[2]).toEqual(result('r1', big('A')));
    expect(r.transcript.messages[5]).toEqual(result('t1', masked('TodoWrite', big('T'))));
  });

  it('measures minBytes in UTF-8 bytes', () => {
    const t = transcript([
      user('go'),
      assistant(null, { tool_calls: [call('a', 'Read'), call('b', 'Read')] }),
      result('a', 'é'.repeat(300)), // 600 bytes
      result('b', 'é'.repeat(500)), // 1000 bytes, 500 characters
      user('next'),
    ]);
    const r = run(maskObservations, t, { ...LAST_TURN_MASK, keepResults: 0 });
    expect(r.transcript.messages[2]).toBe(t.messages[2]);
    expect(r.transcript.messages[3]).toEqual(result('b', masked('Read', 'é'.repeat(500))));
    expect(r.details).toEqual({ resultsMasked: 1, bytesMasked: 1000 });
  });

  it('masks exactly the results over minBytes, at the threshold and around it', () => {
    const texts = ['a'.repeat(800), 'a'.repeat(801), '€'.repeat(266), '€'.repeat(267), '😀'.repeat(200), '😀'.repeat(201)];
    const ids = texts.map((_, i) => `c${i}`);
    const t = transcript([
      user('go'),
      assistant(null, { tool_calls: ids.map((id) => call(id, 'Read')) }),
      ...texts.map((text, i) => result(ids[i], text)),
      user('next'),
    ]);
    const r = run(maskObservations, t, { ...LAST_TURN_MASK, keepResults: 0 });
    const maskedAt = texts.map((_, i) => r.transcript.messages[2 + i] !== t.messages[2 + i]);
    // 800 / 801 bytes, 798 / 801 bytes (3 per character), 800 / 804 bytes (4 per surrogate pair)
    expect(maskedAt).toEqual([false, true, false, true, false, true]);
    expect(r.details).toEqual({ resultsMasked: 3, bytesMasked: 801 + 801 + 804 });
  });

  it('omits the ref without a side store', () => {
    const r = run(maskObservations, session(), { ...LAST_TURN_MASK, keepResults: 2 }, makeContext({ refs: false }));
    expect(r.transcript.messages[2]).toEqual(result('r1', '[Previous: used Read]'));
  });

  it('never touches the first user message or the last turn', () => {
    const t = transcript([user(big('U')), assistant(null, { tool_calls: [call('a', 'Read')] }), result('a', big('A'))]);
    expect(run(maskObservations, t, { ...LAST_TURN_MASK, keepResults: 0 }).transcript).toBe(t);
    expect(run(maskObservations, t, { ...LAST_TURN_MASK, keepResults: 0, keepLast: 0 }).transcript.messages[2]).toEqual(result('a', masked('Read', big('A'))));
  });

  describe('weighs a placeholder before hashing the original', () => {
    // Texts from a few tokens to hundreds, dense and sparse for BPE (a run of spaces is a few tokens, hex is many), so
    // that the placeholder with its ref is worth it for some and not for others, failed results with their error line.
    const units = ['x', 'ab ', ' ', '0f3a9c', 'é', 'Error: nope\n'];
    const sizes = [1, 3, 6, 10, 14, 20, 30, 60, 120, 400];
    const texts = units.flatMap((unit) => sizes.map((n) => unit.repeat(n)));
    const ids = texts.map((_, i) => `c${i}`);
    const t = transcript([
      user('go'),
      assistant(null, { tool_calls: ids.map((id) => call(id, 'Read')) }),
      ...texts.map((text, i) => result(ids[i], text, i % 7 === 0 ? { is_error: true } : {})),
      user('next'),
    ]);

    /** Counts the originals hashed for a ref, and the refs kept, on a side store that names content by its JSON. */
    function countingSink() {
      const sink = new RefSink();
      const hashed: number[] = [];
      const contentRef = sink.contentRef.bind(sink);
      sink.contentRef = (m) => {
        hashed.push(t.messages.findIndex((o) => o.role === 'tool' && m.role === 'tool' && o.tool_call_id === m.tool_call_id));
        return contentRef(m);
      };
      return { sink, hashed };
    }

    // The replay's counter in a provider's tokens: o200k's counts scaled and framed, more tokens than bytes for some texts.
    const tokenizers = {
      heuristic: () => getTokenizer('heuristic'),
      o200k_base: () => getTokenizer('o200k_base'),
      'o200k_base scaled 3x + 5': () => scaledTokenizer(getTokenizer('o200k_base'), 3, 5),
    };
    for (const [name, tokenizerOf] of Object.entries(tokenizers)) {
      it(`masks exactly the results whose placeholder with its ref costs fewer tokens (${name})`, () => {
        const tokenizer = tokenizerOf();
        const { sink, hashed } = countingSink();
        const r = run(maskObservations, t, { ...LAST_TURN_MASK, keepResults: 0, minBytes: 0 }, { tokenizer, refs: sink, window: 200_000 });
        const expected = texts.map((text, i) => {
          const m = t.messages[2 + i] as ToolMessage;
          const failure = isFailedResult(m) ? errorLine(m) : undefined;
          const placeholder = `[Previous: used Read]${failure === undefined ? '' : ` failed: ${failure}`} (ref: ${refOf(JSON.stringify(text))})`;
          return tokenizer.count(placeholder) < tokenizer.count(text);
        });
        const maskedAt = texts.map((_, i) => r.transcript.messages[2 + i] !== t.messages[2 + i]);
        expect(maskedAt).toEqual(expected);
        expect(maskedAt.filter(Boolean).length).toBeGreaterThan(10);
        expect(maskedAt.filter((m) => !m).length).toBeGreaterThan(10);
        for (let i = 0; i < texts.length; i++) {
          if (maskedAt[i]) expect(sink.get(refOf(JSON.stringify(texts[i])))).toBe(JSON.stringify(texts[i]));
        }
        // Only what was masked is stored.
        expect(sink.entries.size).toBe(maskedAt.filter(Boolean).length);
        const maskedIndexes = maskedAt.flatMap((m, i) => (m ? [2 + i] : []));
        // The heuristic counts by length, which no ref changes: only the results masked are hashed. BPE counts the
        // placeholder with its own ref unless the result has more tokens than the placeholder has bytes.
        if (name === 'heuristic') expect(hashed).toEqual(maskedIndexes);
        else expect(hashed).toEqual(expect.arrayContaining(maskedIndexes));
      });
    }
  });
});
