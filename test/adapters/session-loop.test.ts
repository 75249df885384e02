import { beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { toModelMessages } from '../../src/adapters/ai-sdk/model-messages.js';
import { toAnthropic } from '../../src/adapters/anthropic/anthropic-messages.js';
import { type AssistantMessage, type Message, isAssistant, isTool } from '../../src/model/message.js';
import type { Transcript } from '../../src/model/transcript.js';
import { groupToolResults } from '../helpers/runtime-messages.js';
import { modelMessagesOnce } from './model-messages-once.js';
import { CLAUDE_CODE, RunMemo, bundledSessions, promptComparer } from './session-loop.js';

let session: Transcript;
beforeAll(async () => {
  [session] = await bundledSessions([join(CLAUDE_CODE, 'subagent.jsonl')]);
});

/**
 * The prompts of an agent loop over the session: before each reply, the history so far; from the middle on, its first
 * tool result masked (a new object, as an edit makes it); and last, the prompt with the first assistant message
 * dropped, as a compaction drops it.
 */
function prompts(t: Transcript): Message[][] {
  const out: Message[][] = [];
  let history: Message[] = [];
  const half = Math.floor(t.messages.length / 2);
  t.messages.forEach((m, i) => {
    if (i === half) history = history.map((h) => (isTool(h) && h === history.find(isTool) ? { ...h, content: '[masked]' } : h));
    if (isAssistant(m)) out.push([...history]);
    history.push(m);
  });
  out.push(history.filter((m) => m !== history.find(isAssistant)));
  return out;
}

describe('the adapter loops: prompts converted run by run', () => {
  it('has the shapes the loops meet: parallel tool results, and an edit and a dropped call after the first prompts', () => {
    expect(session.messages.some((m, i) => isTool(m) && isTool(session.messages[i - 1]))).toBe(true);
    expect(prompts(session).length).toBeGreaterThan(10);
  });

  it('toAnthropic of a whole prompt, each run converted once', () => {
    const once = new RunMemo(
      (m) => !isTool(m),
      (run) => toAnthropic(run),
    );
    let previous: unknown[] = [];
    let reused = 0;
    for (const prompt of prompts(session)) {
      const converted = once.of(prompt);
      expect(converted).toEqual(toAnthropic(prompt));
      reused += converted.filter((m) => previous.includes(m)).length;
      previous = converted;
    }
    expect(reused).toBeGreaterThan(0);
  });

  it("the AI SDK's messages of a whole prompt, each run converted once, and again where a result's call was dropped", () => {
    const once = modelMessagesOnce();
    for (const prompt of prompts(session)) expect(once(prompt)).toEqual(groupToolResults(toModelMessages(prompt)));
    // A run whose messages stay the same objects while the call its result answers is dropped from before it: the
    // result has no tool name any more.
    const call = session.messages.find((m) => isAssistant(m) && (m.tool_calls ?? []).length > 0) as AssistantMessage;
    const result = session.messages.find((m) => isTool(m) && m.tool_call_id === call.tool_calls![0].id)!;
    const run: Message[] = [{ role: 'user', content: 'between' }, result];
    expect(JSON.stringify(once([call, ...run]))).not.toContain('"toolName":""');
    expect(once(run)).toEqual(groupToolResults(toModelMessages(run)));
    expect(JSON.stringify(once(run))).toContain('"toolName":""');
  });
});

describe('the adapter loops: prompts compared message by message', () => {
  const ref = (hex: string) => ({ role: 'tool', tool_call_id: 'c1', content: `masked (ref: ${hex})` });

  it('passes prompts that are equal with every ref named alike', () => {
    const same = promptComparer();
    same([ref('0123456789abcdef')], [ref('fedcba9876543210')], 'refs');
    const prompt = [{ role: 'user', content: 'a' }, ref('0123456789abcdef')];
    same(prompt, [...prompt], 'the same objects');
  });

  it('fails where one message differs, though its neighbours were compared before, and reports the whole prompts', () => {
    const same = promptComparer();
    const user = { role: 'user', content: 'a' };
    const reply = { role: 'assistant', content: 'b' };
    same([user, reply], [user, reply], 'first call');
    expect(() => same([user, reply], [user, { role: 'assistant', content: 'c' }], 'second call')).toThrow(/second call/);
    expect(() => same([user, reply], [user], 'shorter')).toThrow(/shorter/);
  });
});
