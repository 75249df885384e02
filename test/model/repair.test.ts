import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NO_RESULT_TEXT, renameDuplicateCallIds, repairPairing } from '../../src/model/repair.js';
import { findViolations } from '../../src/model/validity.js';
import type { Message } from '../../src/model/message.js';

const call = (id: string) => ({ id, type: 'function' as const, function: { name: 'Read', arguments: '{}' } });

describe('repairPairing', () => {
  it('returns a valid transcript as the same array with no repairs', () => {
    const messages: Message[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [call('a')] },
      { role: 'tool', tool_call_id: 'a', content: 'r' },
    ];
    const r = repairPairing(messages);
    expect(r.messages).toBe(messages);
    expect(r.repairs).toEqual({ missingResultFilled: 0, orphanResultDropped: 0, duplicateResultDropped: 0, resultMoved: 0 });
  });

  it('fills missing results, drops orphans and duplicates, moves misplaced results, and counts each', () => {
    const late: Message = { role: 'tool', tool_call_id: 'b', content: 'late' };
    const orphan: Message = { role: 'tool', tool_call_id: 'zz', content: 'orphan' };
    const dup: Message = { role: 'tool', tool_call_id: 'a', content: 'again' };
    const messages: Message[] = [
      orphan,
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [call('a'), call('b'), call('c')] },
      { role: 'tool', tool_call_id: 'a', content: 'ra' },
      dup,
      { role: 'user', content: 'next' },
      late,
    ];
    const r = repairPairing(messages);
    expect(r.messages.map((m) => [m.role, (m as { tool_call_id?: string }).tool_call_id ?? '', (m as { content?: unknown }).content])).toEqual([
      ['user', '', 'go'],
      ['assistant', '', null],
      ['tool', 'a', 'ra'],
      ['tool', 'b', 'late'],
      ['tool', 'c', NO_RESULT_TEXT],
      ['user', '', 'next'],
    ]);
    expect(r.repairs).toEqual({ missingResultFilled: 1, orphanResultDropped: 1, duplicateResultDropped: 1, resultMoved: 1 });
    expect(r.dropped).toEqual([orphan, dup]);
    expect(r.messages[3]).toBe(late);
    expect(findViolations(r.messages)).toEqual([]);
  });

  it('counts a result that came before its call as moved', () => {
    const early: Message = { role: 'tool', tool_call_id: 'a', content: 'early' };
    const r = repairPairing([{ role: 'user', content: 'go' }, early, { role: 'assistant', content: null, tool_calls: [call('a')] }]);
    expect(r.repairs.resultMoved).toBe(1);
    expect(r.messages.at(-1)).toBe(early);
  });
});

describe('repairPairing on random sequences', () => {
  // Few ids, so calls repeat ids, results go missing, come twice, early or late, and orphans appear.
  const id = fc.constantFrom('a', 'b', 'c', 'd');
  const message: fc.Arbitrary<Message> = fc.oneof(
    fc.constant<Message>({ role: 'user', content: 'u' }),
    fc.array(id, { maxLength: 3 }).map((ids): Message => ({ role: 'assistant', content: null, ...(ids.length > 0 ? { tool_calls: ids.map(call) } : {}) })),
    id.map((i): Message => ({ role: 'tool', tool_call_id: i, content: `r${i}` })),
  );

  it('leaves no violation, returns a valid transcript as the same array, and is idempotent', () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 14 }), (raw) => {
        // As the readers do: a repeated call id is renamed first, then pairing is repaired.
        const messages = renameDuplicateCallIds(raw).messages;
        const r = repairPairing(messages);
        expect(findViolations(r.messages)).toEqual([]);
        const again = repairPairing(r.messages);
        expect(again.messages).toBe(r.messages);
        if (findViolations(messages).length === 0) {
          expect(r.messages).toBe(messages);
          expect(r.dropped).toEqual([]);
        }
        // Every message is kept, filled in or dropped: none vanishes.
        const kept = r.messages.filter((m) => messages.includes(m)).length;
        expect(kept + r.dropped.length).toBe(messages.length);
      }),
      { numRuns: 3000 },
    );
  });
});
