import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/model/message.js';
import { withoutReasoning } from '../../src/model/turn-reasoning.js';
import { CACHE_RULES } from '../../src/provider/cache-rules.js';
import { type MessageView, replaceByViews, tokensTaken } from '../../src/model/context-views.js';
import { withoutCalls, withoutEarlierThinking } from '../../src/replay/message-views.js';
import { replay } from '../../src/replay/replay.js';
import { contextTokens } from '../../src/tokens/breakdown.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { assistant, call, deepFreeze, result, sys, transcript, user } from '../helpers/transcript-kit.js';

const tok = getTokenizer('o200k_base');

describe('replaceByViews: the one step that puts views in place of a prompt’s messages', () => {
  const messages = deepFreeze<Message[]>([
    sys('rules'),
    user('fix the bug'),
    assistant('reading', { tool_calls: [call('c1', 'Read')] }),
    result('c1', 'x'.repeat(50)),
    assistant('done'),
  ]);

  it('hands back the same array, and no change, when every message is its own view', () => {
    const out = replaceByViews(messages, (m) => m);
    expect(out.messages).toBe(messages);
    expect(out.changed).toEqual([]);
  });

  it('puts each view in its message’s place, closes up the ones left out, and lists each change in order', () => {
    const notice = result('c1', '[file read elsewhere]');
    const positions: number[] = [];
    const view: MessageView = (m, i) => {
      positions.push(i);
      if (i === 2) return undefined;
      return m.role === 'tool' ? notice : m;
    };
    const out = replaceByViews(messages, view);
    expect(positions).toEqual([0, 1, 2, 3, 4]);
    expect(out.messages).toEqual([messages[0], messages[1], notice, messages[4]]);
    expect(out.messages).not.toBe(messages);
    expect(out.changed).toEqual([
      [messages[2], undefined],
      [messages[3], notice],
    ]);
    // The input is left as it was (it is frozen: a write would throw) and keeps its length.
    expect(messages).toHaveLength(5);
  });

  it('counts the tokens a view took out: each message’s size less its view’s', () => {
    const size = (m: Message) => contextTokens([m], undefined, tok);
    const notice = result('c1', 'short');
    const out = replaceByViews(messages, (m, i) => (i === 3 ? notice : i === 4 ? undefined : m));
    expect(tokensTaken(out.changed, size)).toBe(size(messages[3]) - size(notice) + size(messages[4]));
    // A view sized otherwise than its message (the message carries unlogged tokens the view does not).
    expect(tokensTaken(out.changed, (m) => size(m) + 7, size)).toBe(size(messages[3]) + 7 - size(notice) + size(messages[4]) + 7);
    expect(tokensTaken([], size)).toBe(0);
  });
});

describe('the views clients send in place of logged messages', () => {
  it('a resume’s rebuilt chain: the calls left out and their results go, a reply keeps its other calls and its text', () => {
    const both = assistant(null, { tool_calls: [call('a', 'Read'), call('b', 'Bash')] });
    const onlyA = assistant(null, { tool_calls: [call('a', 'Read')] });
    const textAndA = assistant('looking', { tool_calls: [call('a', 'Read')] });
    const view = withoutCalls(new Set(['a']));
    expect(view(both, 0)).toEqual(assistant(null, { tool_calls: [call('b', 'Bash')] }));
    expect(view(onlyA, 0)).toBeUndefined();
    expect(view(textAndA, 0)).toEqual(assistant('looking'));
    expect(view(result('a', 'out'), 0)).toBeUndefined();
    const kept = result('b', 'out');
    expect(view(kept, 0)).toBe(kept);
  });

  it('earlier thinking: only the replies before the last user prompt lose it, as one object each time', () => {
    const first = assistant('one', { reasoning_content: 'think 1' });
    const redacted = assistant('two', { redacted_thinking_blocks: 2 });
    const last = assistant('three', { reasoning_content: 'think 3' });
    const prompt: Message[] = [user('a'), first, user('b'), redacted, user('c'), last];
    const out = replaceByViews(prompt, withoutEarlierThinking(prompt));
    expect(out.messages).toEqual([user('a'), assistant('one'), user('b'), assistant('two'), user('c'), last]);
    expect(out.messages[5]).toBe(last);
    expect(replaceByViews(prompt, withoutEarlierThinking(prompt)).messages[1]).toBe(out.messages[1]);
    // No user prompt: nothing is before the last one.
    expect(replaceByViews([first], withoutEarlierThinking([first])).changed).toEqual([]);
  });
});

describe('the replay through the one step', () => {
  it('bills each prompt as the views leave it: a turn’s reasoning dropped, then a resume’s left-out call', async () => {
    const reads = assistant(null, { reasoning_content: 'I should read the file first. '.repeat(20), tool_calls: [call('c1', 'Read')] });
    const output = result('c1', 'line\n'.repeat(200));
    const answers = assistant('it is fixed', { reasoning_content: 'the fix is small. '.repeat(20) });
    const next = { ...user('now the tests'), resume_rebuild: true, resume_left_out: ['c1'] };
    const last = assistant('tests pass');
    const t = transcript([sys('rules'), user('fix the bug'), reads, output, answers, next, last], { metadata: { reasoningScope: 'turn' } });
    const prompts: number[] = [];
    await replay(t, {}, { tokenizer: tok, window: 200_000, cache: CACHE_RULES.openai, onCall: (n) => prompts.push(n) });
    expect(prompts).toEqual([
      contextTokens([sys('rules'), user('fix the bug')], undefined, tok),
      contextTokens([sys('rules'), user('fix the bug'), reads, output], undefined, tok),
      // The new turn took both replies' reasoning out; the resume then left the call and its result out.
      contextTokens([sys('rules'), user('fix the bug'), withoutReasoning(answers), next], undefined, tok),
    ]);
    expect(prompts[2]).toBeLessThan(contextTokens([sys('rules'), user('fix the bug'), answers, next], undefined, tok));
  });
});
