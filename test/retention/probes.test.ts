import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/model/message.js';
import { extractProbes } from '../../src/retention/probes.js';

const call = (id: string, name: string, args: Record<string, unknown>) => ({
  id,
  type: 'function' as const,
  function: { name, arguments: JSON.stringify(args) },
});

/** A small coding session: reads, an edit that fails then succeeds, a failing then passing test run, two todo states. */
const session: Message[] = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'Fix the failing parser test in src/parser.ts and keep the public API unchanged.' },
  {
    role: 'assistant',
    content: 'Reading the code.',
    tool_calls: [call('c1', 'Read', { file_path: '/repo/src/parser.ts' }), call('c2', 'Read', { file_path: '/repo/./src/missing.ts' })],
  },
  { role: 'tool', tool_call_id: 'c1', content: 'export function parse() {}' },
  { role: 'tool', tool_call_id: 'c2', content: '<tool_use_error>File does not exist.</tool_use_error>', is_error: true },
  { role: 'assistant', content: null, tool_calls: [call('c3', 'Bash', { command: 'npm   test\n  -- parser' })] },
  { role: 'tool', tool_call_id: 'c3', content: 'Exit code 1\nFAIL test/parser.test.ts\n  expected 2, got 3', is_error: true },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      call('c4', 'TodoWrite', {
        todos: [
          { content: 'Fix parse()', status: 'in_progress' },
          { content: 'Run the tests', status: 'pending' },
        ],
      }),
    ],
  },
  { role: 'tool', tool_call_id: 'c4', content: 'Todos updated' },
  { role: 'assistant', content: null, tool_calls: [call('c5', 'Edit', { file_path: '/repo/src/parser.ts', old_string: 'a', new_string: 'b' })] },
  { role: 'tool', tool_call_id: 'c5', content: 'The file /repo/src/parser.ts has been updated.', is_error: false },
  { role: 'assistant', content: null, tool_calls: [call('c6', 'Bash', { command: 'npm test -- parser' }), call('c7', 'Bash', { command: 'git push' })] },
  { role: 'tool', tool_call_id: 'c6', content: 'PASS test/parser.test.ts', is_error: false },
  { role: 'tool', tool_call_id: 'c7', content: 'Exit code 128\nfatal: The current branch has no upstream branch.', is_error: true },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      call('c8', 'TodoWrite', {
        todos: [
          { content: 'Fix parse()', status: 'completed' },
          { content: 'Run the tests', status: 'completed' },
          { content: 'Push  the\nbranch', status: 'pending' },
        ],
      }),
    ],
  },
  { role: 'tool', tool_call_id: 'c8', content: 'Todos updated' },
  { role: 'user', content: '<system-reminder>Files changed.</system-reminder>\nNow push it to origin please.' },
  { role: 'user', content: '<local-command-stdout>Compacted</local-command-stdout>' },
  { role: 'user', content: 'ok' },
  { role: 'assistant', content: 'Pushing.' },
];

describe('extractProbes', () => {
  it('pins every probe of a hand-written coding session, by kind and in order', () => {
    expect(extractProbes({ messages: session })).toEqual([
      // The failed read of missing.ts reads nothing: it is not an artifact.
      { kind: 'artifact', path: '/repo/src/parser.ts', spellings: ['/repo/src/parser.ts'], actions: ['read', 'edit'] },
      { kind: 'command', command: 'npm test -- parser', runs: 2, failed: true },
      { kind: 'command', command: 'git push', runs: 1, failed: true },
      // Read of the same path never succeeded later: unresolved.
      { kind: 'error', line: 'File does not exist.', tool: 'Read', resolved: false },
      // The bare "Exit code 1" line is skipped; the same command passed later: resolved.
      { kind: 'error', line: 'FAIL test/parser.test.ts', tool: 'Bash', resolved: true },
      { kind: 'error', line: 'fatal: The current branch has no upstream branch.', tool: 'Bash', resolved: false },
      { kind: 'intent', text: 'Fix the failing parser test in src/parser.ts and keep the public API unchanged.', match: 'phrases' },
      // The reminder is stripped; local-command output is not a request; "ok" has no key phrase but is the last request.
      { kind: 'intent', text: 'Now push it to origin please.', match: 'phrases' },
      { kind: 'intent', text: 'ok', match: 'verbatim' },
      // Only the last todo state counts, and only its open items.
      { kind: 'task', content: 'Push the branch', status: 'pending' },
    ]);
  });

  it('treats a result without is_error as failed only when its first line reads as a failure', () => {
    const messages: Message[] = [
      { role: 'user', content: 'Book the flight HAT030 for me.' },
      { role: 'assistant', content: null, tool_calls: [call('t1', 'book_reservation', { flight: 'HAT030' })] },
      { role: 'tool', tool_call_id: 't1', content: 'Error: flight HAT030 not available on date 2024-05-13' },
      { role: 'assistant', content: null, tool_calls: [call('t2', 'book_reservation', { flight: 'HAT031' })] },
      { role: 'tool', tool_call_id: 't2', content: '{"reservation_id": "R1", "status": "error-free"}' },
      { role: 'assistant', content: null, tool_calls: [call('t3', 'execute_bash', { command: 'python run.py' })] },
      { role: 'tool', tool_call_id: 't3', content: 'Traceback (most recent call last):\n  File "run.py", line 1' },
    ];
    expect(extractProbes({ messages })).toEqual([
      { kind: 'command', command: 'python run.py', runs: 1, failed: true },
      // Another tool's later success resolves an error of a tool without a path or command: any later call of it.
      { kind: 'error', line: 'Error: flight HAT030 not available on date 2024-05-13', tool: 'book_reservation', resolved: true },
      { kind: 'error', line: 'Traceback (most recent call last):', tool: 'execute_bash', resolved: false },
      { kind: 'intent', text: 'Book the flight HAT030 for me.', match: 'phrases' },
      { kind: 'intent', text: 'Book the flight HAT030 for me.', match: 'verbatim' },
    ]);
  });

  it('takes a slash command by its arguments and ignores harness records', () => {
    const messages: Message[] = [
      {
        role: 'user',
        content: '<command-name>/compact</command-name>\n<command-message>compact</command-message>\n<command-args>and continue with the tasks</command-args>',
      },
      { role: 'user', content: '<command-name>/clear</command-name>\n<command-args></command-args>' },
      { role: 'user', content: 'Base directory for this skill: /x', is_meta: true } as Message,
      { role: 'user', content: 'Summary of the earlier conversation', is_compact_summary: true } as Message,
      { role: 'user', content: 'This session is being continued from a previous conversation that ran out of context.' },
      { role: 'user', content: '<task-notification> <task-id>b0be39e</task-id> <status>completed</status> </task-notification>' },
    ];
    expect(extractProbes({ messages })).toEqual([
      { kind: 'intent', text: 'and continue with the tasks', match: 'phrases' },
      { kind: 'intent', text: 'and continue with the tasks', match: 'verbatim' },
    ]);
  });

  it('finds no probe in a transcript without messages', () => {
    expect(extractProbes({ messages: [] })).toEqual([]);
  });
});
