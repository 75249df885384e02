import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { canonicalJson } from '../../src/io/canonical-json.js';
import type { TextPart } from '../../src/model/content.js';
import type { ToolCall, ToolMessage } from '../../src/model/message.js';
import { callAction, callArguments, callCanonicalArguments } from '../../src/model/tool-call-facts.js';
import { isFailedResult } from '../../src/model/tool-outcome.js';
import { call } from '../helpers/transcript-kit.js';

/** Every text JSON.parse reads from now on (the arguments parser calls it once per arguments text it parses). */
function watchParses(): () => string[] {
  const spy = vi.spyOn(JSON, 'parse');
  return () => spy.mock.calls.map(([text]) => text);
}

afterEach(() => {
  vi.restoreAllMocks();
});

/** A tool result whose one text part counts how often its text is read. */
function countedResult(text: string): { message: ToolMessage; reads: () => number } {
  let reads = 0;
  const part = { type: 'text' } as TextPart;
  Object.defineProperty(part, 'text', {
    enumerable: true,
    get: () => {
      reads++;
      return text;
    },
  });
  return { message: { role: 'tool', tool_call_id: 'c1', content: [part] }, reads: () => reads };
}

describe('tool call facts', () => {
  it('parses the arguments of a call once, whatever is asked of it: the arguments, their canonical text, the action', () => {
    const c = call('c1', 'Read', { limit: 5, file_path: '/p/a.ts' });
    const parsed = watchParses();
    const args = callArguments(c);
    expect(args).toEqual({ limit: 5, file_path: '/p/a.ts' });
    expect(callArguments(c)).toBe(args);
    expect(callCanonicalArguments(c)).toBe('{"file_path":"/p/a.ts","limit":5}');
    expect(callAction(c)).toEqual({ kind: 'read', path: '/p/a.ts' });
    expect(callAction(c)).toBe(callAction(c));
    expect(parsed()).toEqual([c.function.arguments]);
  });

  it('reads a call again when its name or arguments are no longer those it was read from', () => {
    const c: ToolCall = call('c1', 'Read', { file_path: '/p/a.ts' });
    const parsed = watchParses();
    expect(callAction(c)).toEqual({ kind: 'read', path: '/p/a.ts' });
    c.function = { name: 'Write', arguments: JSON.stringify({ file_path: '/p/b.ts', content: 'x' }) };
    expect(callAction(c)).toEqual({ kind: 'write', path: '/p/b.ts' });
    expect(callCanonicalArguments(c)).toBe('{"content":"x","file_path":"/p/b.ts"}');
    expect(parsed()).toEqual(['{"file_path":"/p/a.ts"}', c.function.arguments]);
  });

  it('has no arguments nor canonical text for a call whose arguments are not a JSON object, and describes it by name', () => {
    const c: ToolCall = { id: 'c1', type: 'function', function: { name: 'Bash', arguments: 'ls -la' } };
    const parsed = watchParses();
    expect(callArguments(c)).toBeUndefined();
    expect(callCanonicalArguments(c)).toBeUndefined();
    expect(callAction(c)).toEqual({ kind: 'other' });
    expect(parsed()).toEqual(['ls -la']);
  });

  it('reads the first line of a result once for as long as its content is the same value', () => {
    const { message, reads } = countedResult('Error: no such table\nmore');
    expect(isFailedResult(message)).toBe(true);
    expect(isFailedResult(message)).toBe(true);
    expect(reads()).toBe(1);
    // A result given other content is read again, not answered from what the old content said.
    message.content = 'all good';
    expect(isFailedResult(message)).toBe(false);
    message.content = 'Traceback (most recent call last):';
    expect(isFailedResult(message)).toBe(true);
  });

  it('gives the canonical text of arguments whose keys are already in order, and of any others, as canonicalJson does', () => {
    // Keys in order and not, integer-like keys (listed first by the engine, not sorted as text) and `__proto__` (an own
    // key of parsed JSON that canonicalJson drops).
    const tricky = [
      '{"a":1,"b":{"c":[{"d":2,"e":3}]}}',
      '{"b":1,"a":2}',
      '{"a":{"y":1,"x":2}}',
      '{"10":1,"9":2}',
      '{"1":1,"a":2}',
      '{"__proto__":{"x":1},"a":2}',
      '{"a":[{"__proto__":1}]}',
    ];
    const key = fc.constantFrom('a', 'b', 'path', 'Path', '0', '1', '10', '9', '__proto__', 'é', '');
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue({ maxDepth: 0 }),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(key, tie('node'), { maxKeys: 4 }),
      ),
    })).node;
    const texts = fc.sample(
      fc.dictionary(key, value, { maxKeys: 5 }).map((v) => JSON.stringify(v)),
      { numRuns: 500, seed: 7 },
    );
    for (const [i, text] of [...tricky, ...texts].entries()) {
      const raw: ToolCall = { id: `c${i}`, type: 'function', function: { name: 'Tool', arguments: text } };
      expect(callCanonicalArguments(raw)).toBe(canonicalJson(JSON.parse(text)));
    }
  });
});
