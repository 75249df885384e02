import { describe, expect, it } from 'vitest';
import { NO_RESULT_TEXT } from '../../src/model/repair.js';
import { findViolations } from '../../src/model/validity.js';
import { refOf } from '../../src/refs/ref-store.js';
import { sanitize } from '../../src/strategies/sanitize.js';
import { assistant, call, expectIdempotent, makeContext, result, run, sys, transcript, user } from '../helpers/transcript-kit.js';

describe('sanitize', () => {
  it('accepts {} and rejects unknown options', () => {
    expect(sanitize.config.parse({})).toEqual({});
    expect(sanitize.config.safeParse({ keepLast: 2 }).success).toBe(false);
  });

  it('returns a valid transcript as the same object with zero counts', () => {
    const input = transcript([user('go'), assistant(null, { tool_calls: [call('a', 'Read')] }), result('a', 'r'), assistant('done')]);
    const r = run(sanitize, input);
    expect(r.transcript).toBe(input);
    expect(r).toMatchObject({ messagesChanged: 0, messagesRemoved: 0 });
    expect(r.details).toEqual({ missingResultFilled: 0, orphanResultDropped: 0, duplicateResultDropped: 0, resultMoved: 0 });
  });

  it('repairs the whole transcript, kept turns included, and keeps dropped results in the side store', () => {
    const orphan = result('zz', 'orphan');
    const duplicate = result('a', 'again');
    const late = result('b', 'late');
    const input = transcript([
      sys('s'),
      user('go'),
      assistant(null, { tool_calls: [call('a', 'Read'), call('b', 'Bash')] }),
      result('a', 'ra'),
      duplicate,
      user('next'),
      late,
      orphan,
      assistant(null, { tool_calls: [call('c', 'Grep')] }),
    ]);
    const ctx = makeContext();
    const r = run(sanitize, input, {}, ctx);
    expect(r.transcript).toEqual(
      transcript([
        sys('s'),
        user('go'),
        assistant(null, { tool_calls: [call('a', 'Read'), call('b', 'Bash')] }),
        result('a', 'ra'),
        result('b', 'late'),
        user('next'),
        assistant(null, { tool_calls: [call('c', 'Grep')] }),
        result('c', NO_RESULT_TEXT),
      ]),
    );
    expect(r.details).toEqual({ missingResultFilled: 1, orphanResultDropped: 1, duplicateResultDropped: 1, resultMoved: 1 });
    expect(r).toMatchObject({ messagesChanged: 0, messagesRemoved: 2 });
    expect(r.transcript.messages[4]).toBe(late);
    expect(findViolations(r.transcript.messages)).toEqual([]);
    expect([...ctx.refs!.entries.keys()]).toEqual([refOf(JSON.stringify(duplicate)), refOf(JSON.stringify(orphan))]);
    expect(ctx.refs!.get(refOf(JSON.stringify(orphan)))).toBe(JSON.stringify(orphan));
    expectIdempotent(sanitize, r.transcript);
  });

  it('works without a side store (--no-refs)', () => {
    const input = transcript([user('go'), result('x', 'orphan')]);
    const r = run(sanitize, input, {}, makeContext({ refs: false }));
    expect(r.transcript).toEqual(transcript([user('go')]));
    expect(r.details?.orphanResultDropped).toBe(1);
  });

  it('gives a paired transcript back as it is, with every repair counted as zero, and repairs an unpaired one even at the end of a pipeline', () => {
    const paired = transcript([user('go'), assistant(null, { tool_calls: [call('a', 'Read')] }), result('a', 'r')]);
    const kept = run(sanitize, paired);
    expect(kept.transcript).toBe(paired);
    expect(kept.details).toEqual({ missingResultFilled: 0, orphanResultDropped: 0, duplicateResultDropped: 0, resultMoved: 0 });
    // The last sanitize is the net under a strategy that broke the pairing: it checks, whatever ran before.
    const broken = transcript([user('go'), assistant(null, { tool_calls: [call('a', 'Read')] })]);
    expect(run(sanitize, broken).details?.missingResultFilled).toBe(1);
  });
});
