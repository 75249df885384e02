import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/model/message.js';
import { checkpoint } from '../../src/strategies/checkpoint.js';
import { LAST_TURN, assistant, call, result, run, sys, transcript, user } from '../helpers/transcript-kit.js';

const long = `Continue from the summary below.\n${Array.from({ length: 80 }, (_, i) => `- step ${i}: edit src/m${i}.ts and run the tests`).join('\n')}`;

/** A file read whole: the span is worth replacing even with the long request in the note twice. */
const fileText = Array.from({ length: 400 }, (_, i) => `${i + 1}\texport const v${i} = ${i};`).join('\n');

function session(next: string): Message[] {
  return [
    sys('You are a coding agent.'),
    user('Set up the project'),
    assistant(null, { tool_calls: [call('r1', 'Read', { file_path: 'src/a.ts' })] }),
    result('r1', fileText),
    user(long),
    assistant(null, { tool_calls: [call('b1', 'Bash', { command: 'npm test' })] }),
    result('b1', 'Tests: 3 passed'),
    assistant('Done.'),
    user(next),
    assistant('On it.'),
  ];
}

/** A budget whose third holds the long request whole, so only the rule decides whether it is repeated. */
const ROOMY = { ...LAST_TURN, minChars: 12_000 };

const noteOf = (messages: readonly Message[]) =>
  messages.find((m) => typeof m.content === 'string' && m.content.startsWith('[tcompact checkpoint'))?.content as string;

describe('checkpoint: the request a later one superseded', () => {
  it('lists a long earlier request shortened, without a verbatim copy, when a later request follows the span', () => {
    const note = noteOf(run(checkpoint, transcript(session('Now release it')), ROOMY).transcript.messages);
    expect(note).toContain('1. Continue from the summary below.');
    expect(note).toContain('characters ...]');
    expect(note).not.toContain('Last user request in that span, verbatim:');
    expect(note).not.toContain(long);
  });

  it('keeps the span last request verbatim when the request after it is empty (the next turn eval appends)', () => {
    const note = noteOf(run(checkpoint, transcript(session('')), ROOMY).transcript.messages);
    expect(note).toContain(`Last user request in that span, verbatim:\n${long}`);
  });
});
