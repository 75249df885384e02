import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/model/message.js';
import { refOf } from '../../src/refs/ref-store.js';
import { exitCodeOf } from '../../src/strategies/_checkpoint-facts.js';
import { checkpoint } from '../../src/strategies/checkpoint.js';
import { assistant, call, expectIdempotent, expectInvariants, makeContext, result, run, sys, transcript, user, LAST_TURN } from '../helpers/transcript-kit.js';

function step(id: string, name: string, args: Record<string, unknown>, output: string, isError = false): Message[] {
  return [assistant(null, { tool_calls: [call(id, name, args)] }), result(id, output, isError ? { is_error: true } : {})];
}

const fileText = Array.from({ length: 300 }, (_, i) => `${i + 1}\texport const v${i} = ${i};`).join('\n');

/** A small coding session: a failing test fixed, a failed edit never retried, a lint that keeps failing, a todo list. */
function codingSession(): Message[] {
  return [
    sys('You are a coding agent.'),
    user('Fix the failing test in src/a.ts'),
    ...step('r1', 'Read', { file_path: 'src/a.ts' }, fileText),
    ...step('b1', 'Bash', { command: 'npm test' }, 'Exit code 1\nFAIL src/a.test.ts: expected 2, got 3', true),
    ...step('e1', 'Edit', { file_path: 'src/a.ts', old_string: 'v1 = 1', new_string: 'v1 = 2' }, 'The file src/a.ts has been updated.'),
    ...step('b2', 'Bash', { command: 'npm test' }, 'Tests: 12 passed'),
    ...step('e2', 'Edit', { file_path: 'src/b.ts', old_string: 'x', new_string: 'y' }, 'String to replace not found in file.', true),
    ...step('w1', 'Write', { file_path: 'src/c.ts', content: 'export {};' }, 'File created successfully at: src/c.ts'),
    ...step(
      't1',
      'TodoWrite',
      {
        todos: [
          { content: 'fix a', status: 'completed' },
          { content: 'document c', status: 'in_progress' },
          { content: 'release', status: 'pending' },
        ],
      },
      'Todos have been modified successfully.',
    ),
    user('Now run the linter'),
    assistant('Running it.', { tool_calls: [call('b3', 'Bash', { command: 'npm run lint' })] }),
    result('b3', 'Exit code 2\nsrc/c.ts:1:1 error Unexpected empty export', { is_error: true }),
    user('Thanks, commit it'),
    assistant('Committed.'),
  ];
}

describe('checkpoint', () => {
  it('replaces the middle with one user message of extracted facts and stores the replaced span under its ref', () => {
    const input = transcript(codingSession());
    const ctx = makeContext();
    const r = run(checkpoint, input, { ...LAST_TURN }, ctx);
    const span = input.messages.slice(2, 19);
    const ref = refOf(JSON.stringify(span));
    expect(ctx.refs?.get(ref)).toBe(JSON.stringify(span));
    expect(r.transcript.messages).toHaveLength(5);
    expect(r.transcript.messages.slice(0, 2)).toEqual(input.messages.slice(0, 2));
    expect(r.transcript.messages.slice(3)).toEqual(input.messages.slice(19));
    r.transcript.messages.slice(3).forEach((m, i) => expect(m).toBe(input.messages[19 + i]));
    expect(r.transcript.messages[2]).toEqual({
      role: 'user',
      content: [
        `[tcompact checkpoint of 17 messages] (ref: ${ref})`,
        'A deterministic checkpoint (no model): the facts below were extracted from 17 earlier messages, which were removed from this context. The full record is kept in the tcompact side store under the ref above; `tcompact restore` puts it back.',
        '',
        'User requests, in order (long ones shortened):',
        '1. Now run the linter',
        '',
        'Files touched:',
        '- src/a.ts (read, modified)',
        '- src/c.ts (created)',
        '',
        'Commands run (distinct; outcome of the last run):',
        '- ok after 1 failed run `npm test`',
        '- FAILED `npm run lint`: src/c.ts:1:1 error Unexpected empty export',
        '',
        'Unresolved errors (no later success on the same target):',
        '- Edit src/b.ts: String to replace not found in file.',
        '- `npm run lint`: src/c.ts:1:1 error Unexpected empty export',
        '',
        'Errors resolved later:',
        '- `npm test`: FAIL src/a.test.ts: expected 2, got 3',
        '',
        'Open tasks:',
        '- [in_progress] document c',
        '- [pending] release',
        '',
        'Last user request in that span, verbatim:',
        'Now run the linter',
      ].join('\n'),
    });
    expect(r).toMatchObject({ messagesChanged: 0, messagesRemoved: 17, details: { checkpoints: 1, messagesReplaced: 17 } });
    expectInvariants(input, r.transcript);
    expectIdempotent(checkpoint, r.transcript, LAST_TURN);
  });

  it('marks an error resolved when a later call on the same target succeeds', () => {
    const input = transcript([
      user('go'),
      ...step('e1', 'Edit', { file_path: 'a.ts', old_string: 'x', new_string: 'y' }, 'String to replace not found in file.', true),
      ...step('e2', 'Edit', { file_path: 'a.ts', old_string: 'z', new_string: 'y' }, `updated ${fileText}`),
      user('last'),
    ]);
    const text = run(checkpoint, input, LAST_TURN).transcript.messages[1].content as string;
    expect(text).toContain('Errors resolved later:\n- Edit a.ts: String to replace not found in file.');
    expect(text).toContain('Files touched:\n- a.ts (modified)');
  });

  it('lists a failure its producer did not flag (tau-bench), read from the first line', () => {
    const input = transcript([
      user('cancel my trip'),
      ...step('g1', 'get_reservation_details', { reservation_id: 'XYZ' }, 'Error: reservation XYZ not found'),
      ...step('g2', 'get_user_details', { user_id: 'u1' }, `{"user_id": "u1", "reservations": ["ABC"], "notes": "${'x'.repeat(2000)}"}`),
      user('last'),
    ]);
    const text = run(checkpoint, input, LAST_TURN).transcript.messages[1].content as string;
    expect(text).toContain(
      'Unresolved errors (no later success on the same target):\n- get_reservation_details({"reservation_id":"XYZ"}): Error: reservation XYZ not found',
    );
    expect(text).not.toContain('get_user_details');
  });

  it('says where the record is when refs are off', () => {
    const r = run(checkpoint, transcript(codingSession()), { ...LAST_TURN }, makeContext({ refs: false }));
    const text = r.transcript.messages[2].content as string;
    expect(text.split('\n')[0]).toBe('[tcompact checkpoint of 17 messages]');
    expect(text).toContain('The full record was not kept (refs were off); it is in the original archive.');
  });

  it('keeps the text within its budget, cutting lists with a count of what is left out', () => {
    const many = Array.from({ length: 80 }, (_, i) => step(`b${i}`, 'Bash', { command: `echo ${i} ${'x'.repeat(60)}` }, fileText.slice(0, 400)));
    const input = transcript([user('go'), ...many.flat(), user('last')]);
    const text = run(checkpoint, input, { ...LAST_TURN, minChars: 1500, maxChars: 1500 }).transcript.messages[1].content as string;
    expect(text.length).toBeLessThanOrEqual(1500);
    expect(text).toMatch(/\.\.\. \d+ more \(see the full record\)/);
  });

  it('leaves the transcript unchanged when the checkpoint would not be smaller than the span', () => {
    const input = transcript([user('go'), assistant('a'), user('b'), assistant('c'), user('last')]);
    const r = run(checkpoint, input, { ...LAST_TURN, keepLast: 1 });
    expect(r.transcript).toBe(input);
  });

  it('never replaces the last user request, even with keepLast 0', () => {
    const input = transcript(codingSession());
    const r = run(checkpoint, input, { ...LAST_TURN, keepLast: 0 });
    expectInvariants(input, r.transcript);
    expect(r.transcript.messages.at(-2)).toBe(input.messages.at(-2));
  });

  it('folds an earlier checkpoint into a new one through its ref, and stores the literal span', () => {
    const ctx = makeContext();
    const first = run(checkpoint, transcript(codingSession()), { ...LAST_TURN }, ctx).transcript;
    const grown = transcript([
      ...first.messages.slice(0, -1),
      assistant('Committed.', { tool_calls: [call('g1', 'Bash', { command: 'git commit -am fix' })] }),
      result('g1', `[main 1a2b3c] fix\n${fileText}`),
      user('Now push'),
    ]);
    const r = run(checkpoint, grown, { ...LAST_TURN }, ctx);
    const text = r.transcript.messages[2].content as string;
    expect(text.split('\n')[0]).toMatch(/^\[tcompact checkpoint of 20 messages\] \(ref: [0-9a-f]{16}\)$/);
    expect(text).toContain('1. Now run the linter\n2. Thanks, commit it');
    expect(text).toContain('- ok `git commit -am fix`');
    expect(r.details).toEqual({ checkpoints: 1, messagesReplaced: 4 });
    const ref = /ref: ([0-9a-f]{16})/.exec(text)![1];
    expect(JSON.parse(ctx.refs!.get(ref)!)).toEqual(grown.messages.slice(2, 6));
  });

  it('starts after an earlier checkpoint whose record is not available', () => {
    const first = run(checkpoint, transcript(codingSession()), { ...LAST_TURN }, makeContext()).transcript;
    const r = run(checkpoint, first, { ...LAST_TURN }, makeContext());
    expect(r.transcript).toBe(first);
  });

  it('reads exit codes from the first or last line only', () => {
    expect(exitCodeOf('Exit code 1\nboom')).toBe(1);
    expect(exitCodeOf('output\n[The command completed with exit code 0.]')).toBe(0);
    expect(exitCodeOf('a\nthe docs say exit code 3 means x\nb')).toBeUndefined();
    expect(exitCodeOf('\n  Exit code 2  \n')).toBe(2);
    expect(exitCodeOf('out\nmore\nExit code 4\n\n')).toBe(4);
    expect(exitCodeOf('  one line, exit code 5')).toBe(5);
    expect(exitCodeOf('')).toBeUndefined();
  });
});
