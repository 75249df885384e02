import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/model/message.js';
import { errorLocation, extractFacts } from '../../src/strategies/_checkpoint-facts.js';
import { NO_SALIENCE, SALIENCE_WEIGHTS, salienceOf } from '../../src/strategies/_checkpoint-salience.js';
import { checkpoint, renderCheckpoint } from '../../src/strategies/checkpoint.js';
import { countMessage, totalOf } from '../../src/tokens/breakdown.js';
import { LAST_TURN, assistant, call, makeContext, result, run, transcript, user } from '../helpers/transcript-kit.js';

function step(id: string, name: string, args: Record<string, unknown>, output: string, isError = false): Message[] {
  return [assistant(null, { tool_calls: [call(id, name, args)] }), result(id, output, isError ? { is_error: true } : {})];
}

/** 60 files read once each, in order, then one early file edited again at the end; the last request names another. */
function longSession(): Message[] {
  const reads = Array.from({ length: 60 }, (_, i) => step(`r${i}`, 'Read', { file_path: `/repo/src/module-${String(i).padStart(2, '0')}.ts` }, 'x'));
  return [
    user('Refactor the modules'),
    ...reads.flat(),
    ...step('e1', 'Edit', { file_path: '/repo/src/module-03.ts', old_string: 'a', new_string: 'b' }, 'updated'),
    user('Now look at module-07.ts again'),
  ];
}

const filesOf = (text: string) => [...text.matchAll(/^- (\S*module-\d+\.ts) \(/gm)].map((m) => m[1]);

describe('checkpoint salience', () => {
  it('scores files by what the span says at its end: recency, the working set, edits, the last request', () => {
    const facts = extractFacts(longSession());
    const s = salienceOf(facts);
    const at = (name: string) => s.files[facts.files.findIndex((f) => f.path.endsWith(name))];
    // The edited file, touched last, outranks every other; the last read outranks the first.
    expect(at('module-03.ts')).toBeGreaterThan(at('module-59.ts'));
    expect(at('module-59.ts')).toBeGreaterThan(at('module-00.ts'));
    // The file the last request names outranks its neighbours in age.
    expect(at('module-07.ts')).toBeGreaterThan(at('module-08.ts'));
    expect(salienceOf(facts, NO_SALIENCE).files.every((v) => v === 0)).toBe(true);
  });

  it('under a tight budget keeps the most salient files, in the span order, and counts the rest', () => {
    const facts = extractFacts(longSession());
    const text = renderCheckpoint(facts, 123, undefined, 1500);
    const kept = filesOf(text);
    expect(kept.length).toBeGreaterThan(3);
    expect(kept.length).toBeLessThan(60);
    expect(kept).toContain('/repo/src/module-03.ts');
    expect(kept).toContain('/repo/src/module-59.ts');
    expect(kept).not.toContain('/repo/src/module-00.ts');
    expect([...kept].sort()).toEqual(kept);
    expect(text).toContain(`... ${60 - kept.length} more (see the full record)`);
    // Without salience the same budget keeps the first files found and cuts at the end.
    const inOrder = filesOf(renderCheckpoint(facts, 123, undefined, 1500, { weights: NO_SALIENCE }));
    expect(inOrder[0]).toBe('/repo/src/module-00.ts');
    expect(inOrder).not.toContain('/repo/src/module-59.ts');
    // Same facts, same bytes.
    expect(renderCheckpoint(extractFacts(longSession()), 123, undefined, 1500, { weights: SALIENCE_WEIGHTS })).toBe(text);
  });

  it('holds the message to budgetTokens of the run tokenizer when given', () => {
    const ctx = makeContext();
    const input = transcript(longSession(), { metadata: { cwd: '/repo' } });
    for (const budgetTokens of [200, 400]) {
      const message = run(checkpoint, input, { ...LAST_TURN, budgetTokens }, ctx).transcript.messages[1];
      expect(totalOf(countMessage(message, ctx.tokenizer))).toBeLessThanOrEqual(budgetTokens);
      expect(totalOf(countMessage(message, ctx.tokenizer))).toBeGreaterThan(budgetTokens * 0.6);
    }
  });

  it('merges the line ranges of ranged reads, and says plain read when one read took the whole file', () => {
    const messages = [
      user('Look at the parser'),
      ...step('a', 'Read', { file_path: '/repo/p.ts', offset: 1, limit: 50 }, 'x'),
      ...step('b', 'Read', { file_path: '/repo/p.ts', offset: 40, limit: 60 }, 'x'),
      ...step('c', 'Read', { file_path: '/repo/p.ts', offset: 200, limit: 10 }, 'x'),
      ...step('d', 'Read', { file_path: '/repo/q.ts', offset: 5, limit: 5 }, 'x'),
      ...step('e', 'Read', { file_path: '/repo/q.ts' }, 'x'),
    ];
    const text = renderCheckpoint(extractFacts(messages), messages.length, undefined, 4000, { root: '/repo' });
    expect(text).toContain('- p.ts (read lines 1-99, 200-209)');
    expect(text).toContain('- q.ts (read)');
  });

  it("gives an error's first line and the location its trace points at, in place of the trace", () => {
    const trace = 'Traceback (most recent call last):\n  File "/repo/app/main.py", line 42, in run\n    go()\nValueError: bad input';
    expect(errorLocation(trace, 'ValueError: bad input')).toBe('/repo/app/main.py:42');
    expect(errorLocation('TypeError: x is undefined\n    at run (src/cli/main.ts:17:5)', 'TypeError: x is undefined')).toBe('src/cli/main.ts:17');
    // A line that already says where keeps its own location.
    expect(errorLocation('src/c.ts:1:1 error Unexpected empty export\nat other.ts:9', 'src/c.ts:1:1 error Unexpected empty export')).toBeUndefined();
    const messages = [user('Run it'), ...step('b', 'Bash', { command: 'python app/main.py' }, `Exit code 1\n${trace}`, true)];
    expect(renderCheckpoint(extractFacts(messages), 3, undefined, 4000)).toContain(
      '- `python app/main.py`: Traceback (most recent call last): (at /repo/app/main.py:42)',
    );
  });

  it('writes file paths relative to the project root, and says so', () => {
    const input = transcript(longSession(), { metadata: { cwd: '/repo' } });
    const text = run(checkpoint, input, { ...LAST_TURN, keepLast: 1 }).transcript.messages[1].content as string;
    expect(text).toContain('File paths are relative to /repo.');
    expect(text).toContain('- src/module-03.ts (read, modified)');
    expect(text).not.toContain('/repo/src/module-03.ts');
  });
});
