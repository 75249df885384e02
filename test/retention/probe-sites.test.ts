import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/model/message.js';
import { probeSites } from '../../src/retention/probe-sites.js';
import { extractProbes } from '../../src/retention/probes.js';
import { bundledTranscripts } from '../helpers/bundled-transcripts.js';

const call = (id: string, name: string, args: Record<string, unknown>) => ({
  id,
  type: 'function' as const,
  function: { name, arguments: JSON.stringify(args) },
});

/** A test run that fails, an edit, the same test run passing, a todo list written twice, two requests. */
const session: Message[] = [
  { role: 'user', content: 'Fix the parser test.' },
  { role: 'assistant', content: null, tool_calls: [call('c1', 'Bash', { command: 'npm  test' })] },
  { role: 'tool', tool_call_id: 'c1', content: 'Exit code 1\nFAIL test/parser.test.ts', is_error: true },
  { role: 'assistant', content: null, tool_calls: [call('c2', 'Edit', { file_path: '/repo/./src/parser.ts', old_string: 'a', new_string: 'b' })] },
  { role: 'tool', tool_call_id: 'c2', content: 'The file has been updated.' },
  { role: 'assistant', content: null, tool_calls: [call('c3', 'TodoWrite', { todos: [{ content: 'Push the branch', status: 'pending' }] })] },
  { role: 'tool', tool_call_id: 'c3', content: 'Todos updated' },
  { role: 'assistant', content: null, tool_calls: [call('c4', 'Bash', { command: 'npm test' })] },
  { role: 'tool', tool_call_id: 'c4', content: 'PASS test/parser.test.ts' },
  { role: 'assistant', content: null, tool_calls: [call('c5', 'TodoWrite', { todos: [{ content: 'Push the branch', status: 'pending' }] })] },
  { role: 'tool', tool_call_id: 'c5', content: 'Todos updated' },
  { role: 'user', content: 'Now push it to origin.' },
];

describe('probeSites', () => {
  it('finds each probe where it occurred: the calls, the failed result, the last todo list, each request', () => {
    const sitesOf = probeSites(session);
    const found = extractProbes({ messages: session }).map((p) => [p.kind, 'match' in p ? p.match : '', sitesOf(p)]);
    expect(found).toEqual([
      ['artifact', '', [3]],
      ['command', '', [1, 7]],
      ['error', '', [2]],
      ['intent', 'phrases', [0]],
      ['intent', 'phrases', [11]],
      ['intent', 'verbatim', [11]],
      ['task', '', [9]],
    ]);
  });

  it('finds every probe of every bundled real transcript at least once', async () => {
    for (const t of await bundledTranscripts()) {
      const sitesOf = probeSites(t.messages);
      for (const probe of extractProbes(t)) expect(sitesOf(probe), `${t.id}: ${JSON.stringify(probe)}`).not.toEqual([]);
    }
  }, 120_000);
});
