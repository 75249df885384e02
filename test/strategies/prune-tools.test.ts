import { describe, expect, it } from 'vitest';
import type { ToolDef } from '../../src/model/transcript.js';
import { refOf } from '../../src/refs/ref-store.js';
import { pruneTools } from '../../src/strategies/prune-tools.js';
import { assistant, call, expectIdempotent, makeContext, result, run, transcript, user } from '../helpers/transcript-kit.js';

const def = (name: string): ToolDef => ({ type: 'function', function: { name, description: `${name} tool`, parameters: { type: 'object' } } });
const messages = () => [user('go'), assistant(null, { tool_calls: [call('a', 'Read')] }), result('a', 'r'), user('next')];

describe('prune-tools', () => {
  it('accepts {} and rejects unknown options', () => {
    expect(pruneTools.config.parse({})).toEqual({});
    expect(pruneTools.config.safeParse({ keepLast: 1 }).success).toBe(false);
  });

  it('removes definitions of tools never called and keeps the messages as they are', () => {
    const before = transcript(messages(), { tools: [def('Bash'), def('Read'), def('Grep')], metadata: { source: 'x' } });
    const ctx = makeContext();
    const r = run(pruneTools, before, {}, ctx);
    expect(r.transcript).toEqual(transcript(messages(), { tools: [def('Read')], metadata: { source: 'x' } }));
    expect(r.transcript.messages).toBe(before.messages);
    expect(r).toMatchObject({ messagesChanged: 0, messagesRemoved: 0, details: { toolDefsRemoved: 2 } });
    expect(ctx.refs!.get(refOf(JSON.stringify(def('Grep'))))).toBe(JSON.stringify(def('Grep')));
    expectIdempotent(pruneTools, r.transcript);
  });

  it('drops the tools field when no tool is called (chat APIs reject an empty list)', () => {
    const r = run(pruneTools, transcript([user('hi'), assistant('hello')], { tools: [def('Bash')] }));
    expect(r.transcript).toEqual(transcript([user('hi'), assistant('hello')]));
    expect('tools' in r.transcript).toBe(false);
  });

  it('returns the same transcript when every tool is used or there are none', () => {
    const used = transcript(messages(), { tools: [def('Read')] });
    expect(run(pruneTools, used).transcript).toBe(used);
    const none = transcript(messages());
    expect(run(pruneTools, none).transcript).toBe(none);
  });
});
