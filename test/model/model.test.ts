import { describe, expect, it } from 'vitest';
import { parseTranscript } from '../../src/model/parse.js';
import { findViolations } from '../../src/model/validity.js';
import type { Message } from '../../src/model/message.js';

describe('parseTranscript', () => {
  it('keeps unknown fields and passes unknown roles through with a warning', () => {
    const input = {
      id: 'x',
      extra: { keep: true },
      messages: [
        { role: 'user', content: 'hi', custom: 42 },
        { role: 'critic', content: 'looks fine' },
      ],
    };
    const r = parseTranscript(input);
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.transcript).toEqual(input);
    expect(r.value.warnings).toEqual(['messages[1]: unknown role "critic" passed through unchanged']);
  });

  it('keeps the key order of every object, so a line serializes back to the same bytes', () => {
    const line = JSON.stringify({
      metadata: { b: 1, a: 2 },
      messages: [
        { content: 'hi', role: 'user' },
        {
          role: 'assistant',
          reasoning_content: 'think first',
          content: null,
          tool_calls: [{ type: 'function', id: 'c1', function: { arguments: '{}', name: 'Read' } }],
        },
        { tool_call_id: 'c1', role: 'tool', content: [{ text: 'ok', type: 'text' }] },
      ],
      id: 'x',
      tools: [{ function: { name: 'Read' }, type: 'function' }],
    });
    const r = parseTranscript(JSON.parse(line));
    if (!r.ok) throw new Error(r.error.message);
    expect(JSON.stringify(r.value.transcript)).toBe(line);
  });

  it('names the exact path of a schema error', () => {
    const r = parseTranscript({
      id: 'x',
      messages: [
        { role: 'user', content: 'a' },
        { role: 'tool', content: 'b' },
      ],
    });
    expect(r).toEqual({ ok: false, error: { code: 'E_SCHEMA', message: 'messages[1].tool_call_id: Invalid input: expected string, received undefined' } });
  });

  it('rejects a transcript without an id', () => {
    const r = parseTranscript({ messages: [] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toBe('id: Invalid input: expected string, received undefined');
  });
});

describe('findViolations', () => {
  const call = (id: string) => ({ id, type: 'function' as const, function: { name: 'f', arguments: '{}' } });
  it('accepts a well-formed transcript', () => {
    const messages: Message[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [call('a'), call('b')] },
      { role: 'tool', tool_call_id: 'a', content: '1' },
      { role: 'tool', tool_call_id: 'b', content: '2' },
    ];
    expect(findViolations(messages)).toEqual([]);
  });

  it('finds missing, orphan, duplicate and misplaced results', () => {
    const messages: Message[] = [
      { role: 'tool', tool_call_id: 'z', content: 'orphan' },
      { role: 'assistant', content: null, tool_calls: [call('a'), call('b')] },
      { role: 'tool', tool_call_id: 'a', content: '1' },
      { role: 'tool', tool_call_id: 'a', content: 'again' },
      { role: 'user', content: 'next' },
      { role: 'tool', tool_call_id: 'b', content: 'late' },
    ];
    expect(findViolations(messages).map((v) => [v.kind, v.index, v.toolCallId])).toEqual([
      ['orphan_result', 0, 'z'],
      ['duplicate_result', 3, 'a'],
      ['missing_result', 1, 'b'],
      ['misplaced_result', 5, 'b'],
    ]);
  });
});
