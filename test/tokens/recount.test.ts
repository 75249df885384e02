import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/model/message.js';
import type { ToolDef, Transcript } from '../../src/model/transcript.js';
import { countTranscript } from '../../src/tokens/breakdown.js';
import { recountTranscript } from '../../src/tokens/recount.js';
import { type Tokenizer, createTokenizer, getTokenizer } from '../../src/tokens/tokenizer.js';
import { assistant, call, result, transcript, user } from '../helpers/transcript-kit.js';

/** One message of each kind the counter tells apart, its text from `text`. */
function messageOf(kind: number, text: string): Message {
  switch (kind % 7) {
    case 0:
      return user(text);
    case 1:
      return assistant(text, { reasoning_content: text.slice(1) });
    case 2:
      return assistant(null, { tool_calls: [call(`c${text.length}`, 'Read', { file_path: text })] });
    case 3:
      return result(`c${text.length}`, text);
    case 4:
      return result(`c${text.length}`, [
        { type: 'text', text },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
      ]);
    case 5:
      return { role: 'system', content: text };
    default:
      return { role: 'narrator', content: text } as unknown as Message;
  }
}

const message = fc.tuple(fc.nat(6), fc.string({ minLength: 1, maxLength: 40 })).map(([kind, text]) => messageOf(kind, text));
const tools: ToolDef[] = [{ type: 'function', function: { name: 'Read', parameters: { type: 'object' } } }];

/** An edit of a message list as strategies make them, and those they do not (a move, the same object twice). */
const edit = fc.oneof(
  fc.record({ op: fc.constant('remove' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('replace' as const), at: fc.nat(), with: message }),
  fc.record({ op: fc.constant('insert' as const), at: fc.nat(), with: message }),
  fc.record({ op: fc.constant('move' as const), at: fc.nat(), to: fc.nat() }),
  fc.record({ op: fc.constant('repeat' as const), at: fc.nat(), to: fc.nat() }),
);
type Edit = typeof edit extends fc.Arbitrary<infer E> ? E : never;

function applyEdits(messages: readonly Message[], edits: readonly Edit[]): Message[] {
  const out = messages.slice();
  for (const e of edits) {
    const at = out.length === 0 ? 0 : e.at % out.length;
    if (e.op === 'insert') out.splice(e.at % (out.length + 1), 0, e.with);
    else if (out.length === 0) continue;
    else if (e.op === 'remove') out.splice(at, 1);
    else if (e.op === 'replace') out[at] = e.with;
    else if (e.op === 'move') out.splice(e.to % out.length, 0, ...out.splice(at, 1));
    else out.splice(e.to % (out.length + 1), 0, out[at]);
  }
  return out;
}

describe('recountTranscript', () => {
  for (const name of ['heuristic', 'o200k_base'] as const) {
    it(`equals countTranscript of the new transcript, whatever the edits (${name})`, () => {
      const tok = getTokenizer(name);
      fc.assert(
        fc.property(fc.array(message, { maxLength: 30 }), fc.array(edit, { maxLength: 8 }), fc.nat(3), (messages, edits, toolsChange) => {
          const before: Transcript = transcript(messages, toolsChange % 2 === 0 ? { tools } : {});
          const after: Transcript = { ...before, messages: applyEdits(messages, edits) };
          if (toolsChange >= 2) after.tools = toolsChange === 2 ? undefined : [...tools, ...tools];
          expect(recountTranscript(before, countTranscript(before, tok), after, tok)).toEqual(countTranscript(after, tok));
        }),
        { numRuns: 400 },
      );
    });
  }

  /** The heuristic counter, counting the texts it is given. */
  function countingTokenizer(): Tokenizer & { texts: string[] } {
    const texts: string[] = [];
    const heuristic = createTokenizer('heuristic');
    return { name: 'heuristic', engine: null, texts, count: (text) => (texts.push(text), heuristic.count(text)) };
  }

  it('counts only the messages not in both', () => {
    const messages = Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? user(`question ${i}`) : assistant(`answer ${i}`)));
    const before = transcript(messages);
    const edited = messages.slice();
    edited[40] = user('replaced');
    edited.splice(70, 2, assistant('inserted'));
    const tok = countingTokenizer();
    const counted = countTranscript(before, tok);
    tok.texts.length = 0;
    const after = transcript(edited);
    expect(recountTranscript(before, counted, after, tok)).toEqual(countTranscript(after, createTokenizer('heuristic')));
    expect(tok.texts.sort()).toEqual(['answer 71', 'inserted', 'question 40', 'question 70', 'replaced']);
  });
});
