import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AssistantMessage, Message } from '../../src/model/message.js';
import { extractFacts } from '../../src/strategies/_checkpoint-facts.js';
import { dedupTools } from '../../src/strategies/dedup-tools.js';
import { assistant, call, LAST_TURN, result, run, sys, transcript, user } from '../helpers/transcript-kit.js';

/** Every text JSON.parse reads from now on (the arguments parser calls it once per arguments text it parses). */
function watchParses(): () => string[] {
  const spy = vi.spyOn(JSON, 'parse');
  return () => spy.mock.calls.map(([text]) => text);
}

afterEach(() => {
  vi.restoreAllMocks();
});

function step(id: string, name: string, args: Record<string, unknown>, output = `out ${id}`): Message[] {
  return [assistant(null, { tool_calls: [call(id, name, args)] }), result(id, output)];
}

describe('tool call facts shared between strategies', () => {
  it('lets checkpoint reuse the arguments dedup-tools parsed: every unchanged call is parsed once across both', () => {
    const input = transcript([
      sys('s'),
      user('start'),
      ...step('a', 'Read', { file_path: '/p/a.ts' }),
      ...step('b', 'Edit', { file_path: '/p/a.ts', old_string: 'x', new_string: 'y' }),
      ...step('c', 'Grep', { pattern: 'todo', path: 'src' }),
      ...step('d', 'Bash', { command: 'npm test' }),
      ...step('e', 'Grep', { pattern: 'todo', path: 'src' }),
      user('last request'),
      assistant('done'),
    ]);
    const argumentTexts = (messages: readonly Message[]) =>
      messages.flatMap((m) => (m.role === 'assistant' ? ((m as AssistantMessage).tool_calls ?? []).map((c) => c.function.arguments) : []));
    const all = new Set(argumentTexts(input.messages));
    let parsed = watchParses();
    const deduped = run(dedupTools, input, LAST_TURN);
    // dedup-tools reads the ranged calls (Read) and the calls that invalidate them (Edit). It compares the two Grep
    // calls by their text, which is the same, and has no reason to read Bash.
    expect(deduped.details).toMatchObject({ duplicatesRemoved: 1 });
    const bash = JSON.stringify({ command: 'npm test' });
    const grep = JSON.stringify({ pattern: 'todo', path: 'src' });
    expect(parsed().filter((t) => all.has(t))).toEqual(argumentTexts(input.messages).filter((t) => t !== bash && t !== grep));
    vi.restoreAllMocks();
    parsed = watchParses();
    // checkpoint describes every call of its span: only the ones dedup-tools had no reason to read are parsed now.
    const facts = extractFacts(deduped.transcript.messages);
    expect(facts.commands.map((c) => c.command)).toEqual(['npm test']);
    expect(parsed().filter((t) => all.has(t))).toEqual([bash, grep]);
  });
});
