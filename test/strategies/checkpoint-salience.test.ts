import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/model/message.js';
import { extractFacts } from '../../src/strategies/_checkpoint-facts.js';
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

  it('writes file paths relative to the project root, and says so', () => {
    const input = transcript(longSession(), { metadata: { cwd: '/repo' } });
    const text = run(checkpoint, input, { ...LAST_TURN, keepLast: 1 }).transcript.messages[1].content as string;
    expect(text).toContain('File paths are relative to /repo.');
    expect(text).toContain('- src/module-03.ts (read, modified)');
    expect(text).not.toContain('/repo/src/module-03.ts');
  });
});
