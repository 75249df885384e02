import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ModelMessage, pruneMessages } from 'ai';
import { describe, expect, it } from 'vitest';
import { fromModelMessages, toModelMessages } from '../../../src/adapters/ai-sdk/model-messages.js';
import { indexCalls } from '../../../src/adapters/call-index.js';
import { ContextManager } from '../../../src/context/context-manager.js';
import { resolvePolicy } from '../../../src/replay/policies/resolve.js';
import { CACHE_RULES } from '../../../src/provider/cache-rules.js';
import { replay } from '../../../src/replay/replay.js';
import { AiSdkPruneSchema, pruneMessagesLike } from '../../../src/replay/policies/runtime/ai-sdk-prune.js';
import { AnthropicContextManagementSchema, CLEARED_RESULT, applyClearToolUses } from '../../../src/replay/policies/runtime/anthropic-context-editing.js';
import {
  LangChainClearToolUsesSchema,
  applyLangChainClearToolUses,
  langChainApproxTokens,
} from '../../../src/replay/policies/runtime/langchain-context-editing.js';
import { type AssistantMessage, type Message, type ToolMessage, isTool as isToolMessage } from '../../../src/model/message.js';
import type { Transcript } from '../../../src/model/transcript.js';
import { countTranscript } from '../../../src/tokens/breakdown.js';
import { getTokenizer } from '../../../src/tokens/tokenizer.js';
import { bundledTranscripts } from '../../helpers/bundled-transcripts.js';
import { groupToolResults } from '../../helpers/runtime-messages.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { policyEnv } from '../../helpers/policy-env.js';

const tok = getTokenizer('heuristic');

/** user, then five tool uses (Read, Read, Bash, Grep, Read) each with a 400-character result, then a closing reply. */
function session(): Message[] {
  const names = ['Read', 'Read', 'Bash', 'Grep', 'Read'];
  const messages: Message[] = [{ role: 'user', content: 'fix the build' }];
  names.forEach((name, i) => {
    messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, type: 'function', function: { name, arguments: `{"n":${i}}` } }] });
    messages.push({ role: 'tool', tool_call_id: `c${i}`, content: `${i}`.repeat(400) });
  });
  messages.push({ role: 'assistant', content: 'done' });
  return messages;
}

const resultOf = (messages: readonly Message[], i: number) => (messages.find((m) => m.role === 'tool' && m.tool_call_id === `c${i}`) as ToolMessage).content;
const inputOf = (messages: readonly Message[], i: number) =>
  (messages.find((m) => m.role === 'assistant' && (m as AssistantMessage).tool_calls?.[0]?.id === `c${i}`) as AssistantMessage).tool_calls![0].function
    .arguments;

describe('anthropic:FILE, clear_tool_uses_20250919 as the API applies it', () => {
  const edit = (value: unknown) => AnthropicContextManagementSchema.parse({ edits: [value] }).edits[0];

  it('clears every result but the last `keep` tool uses, oldest first, sparing excluded tools, and the inputs it names', () => {
    const messages = session();
    const out = applyClearToolUses(
      messages,
      600,
      edit({
        type: 'clear_tool_uses_20250919',
        trigger: { type: 'input_tokens', value: 500 },
        keep: { type: 'tool_uses', value: 1 },
        exclude_tools: ['Grep'],
        clear_tool_inputs: ['Bash'],
      }),
      tok,
    );
    // Uses 0-3 are older than the last one; Grep (3) is excluded: 0, 1, 2 are cleared, 3 and 4 keep their results.
    expect([0, 1, 2, 3, 4].map((i) => resultOf(out, i))).toEqual([CLEARED_RESULT, CLEARED_RESULT, CLEARED_RESULT, '3'.repeat(400), '4'.repeat(400)]);
    // Only Bash's input goes.
    expect([0, 1, 2, 3, 4].map((i) => inputOf(out, i))).toEqual(['{"n":0}', '{"n":1}', '{}', '{"n":3}', '{"n":4}']);
    // The history itself is untouched.
    expect(resultOf(messages, 0)).toBe('0'.repeat(400));
  });

  it('does nothing below the trigger, and nothing when the clear would free less than clear_at_least', () => {
    const messages = session();
    const below = applyClearToolUses(messages, 500, edit({ type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 500 } }), tok);
    expect(below).toBe(messages);
    // Defaults: keep 3 -> uses 0 and 1 are cleared, 2 x (100 - 6) = 188 tokens freed (400 chars against the placeholder).
    const freed = applyClearToolUses(messages, 600, edit({ type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 500 } }), tok);
    expect([0, 1, 2].map((i) => resultOf(freed, i))).toEqual([CLEARED_RESULT, CLEARED_RESULT, '2'.repeat(400)]);
    const tooLittle = edit({
      type: 'clear_tool_uses_20250919',
      trigger: { type: 'input_tokens', value: 500 },
      clear_at_least: { type: 'input_tokens', value: 189 },
    });
    expect(applyClearToolUses(messages, 600, tooLittle, tok)).toBe(messages);
    const enough = { ...tooLittle, clear_at_least: { type: 'input_tokens' as const, value: 188 } };
    expect(applyClearToolUses(messages, 600, enough, tok)).not.toBe(messages);
  });

  it('triggers on a number of tool uses', () => {
    const messages = session();
    const e = edit({ type: 'clear_tool_uses_20250919', trigger: { type: 'tool_uses', value: 4 }, keep: { type: 'tool_uses', value: 4 } });
    expect([0, 1].map((i) => resultOf(applyClearToolUses(messages, 0, e, tok), i))).toEqual([CLEARED_RESULT, '1'.repeat(400)]);
  });

  it('replays on the full history: every prompt is edited afresh, the agent keeps what the API cleared', async () => {
    const dir = tempDir('runtime-policy');
    const file = join(dir, 'anthropic.json');
    writeFileSync(
      file,
      JSON.stringify({ edits: [{ type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 300 }, keep: { type: 'tool_uses', value: 2 } }] }),
    );
    const t: Transcript = { id: 'hand', messages: session() };
    const policy = resolvePolicy(`anthropic:${file}`, tok);
    const none = await replay(t, {}, { tokenizer: tok, window: 100_000, cache: CACHE_RULES.ideal });
    const edited = await replay(t, policy.instantiate(policyEnv({ tokenizer: tok, window: 100_000 })), {
      tokenizer: tok,
      window: 100_000,
      cache: CACHE_RULES.ideal,
    });
    expect(edited.calls).toBe(none.calls);
    expect(edited.billedInput).toBeLessThan(none.billedInput);
    // The last call's prompt: 5 uses, the last 2 kept, so 3 results cleared (each 103 -> 9 tokens with framing).
    expect(none.peakPrompt - edited.peakPrompt).toBe(3 * (103 - 9));
  });

  it('refuses a file that is not a context_management object, naming the field', () => {
    const dir = tempDir('runtime-policy');
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ edits: [{ type: 'clear_tool_uses_20250919', keep: { type: 'tool_uses', value: -1 } }] }));
    expect(() => resolvePolicy(`anthropic:${file}`, tok)).toThrow(/E_CONFIG|edits\[0\]\.keep\.value/);
  });
});

describe('ai-sdk:FILE, pruneMessages as the AI SDK applies it', () => {
  const OPTIONS = [
    { reasoning: 'all', toolCalls: 'all' },
    { reasoning: 'before-last-message', toolCalls: 'before-last-message' },
    { toolCalls: 'before-last-4-messages' },
    { toolCalls: [{ type: 'before-last-2-messages', tools: ['Read', 'Bash'] }], emptyMessages: 'keep' },
    { reasoning: 'all', toolCalls: 'none' },
  ];

  it('gives the messages the SDK itself gives, on every bundled transcript, for each set of options', async () => {
    const transcripts = (await bundledTranscripts()).filter((t) => t.messages.every((m) => ['system', 'user', 'assistant', 'tool'].includes(m.role)));
    expect(transcripts.length).toBeGreaterThan(40);
    for (const raw of OPTIONS) {
      const options = AiSdkPruneSchema.parse(raw);
      let changed = 0;
      for (const t of transcripts) {
        const index = indexCalls(t.messages);
        // The SDK's own history: a step's results in one tool message.
        const steps = groupToolResults(toModelMessages(t.messages));
        const theirs = { id: t.id, messages: fromModelMessages(pruneMessages({ messages: steps, ...(raw as object) } as { messages: ModelMessage[] }), index) };
        const ours = { id: t.id, messages: pruneMessagesLike(t.messages, options) };
        // Compared through the SDK's own message shape, which is what both sides mean.
        expect(groupToolResults(toModelMessages(ours.messages))).toEqual(groupToolResults(toModelMessages(theirs.messages)));
        if (ours.messages.length !== t.messages.length) changed++;
      }
      if (raw.toolCalls !== 'none') expect(changed).toBeGreaterThan(0);
    }
  });

  it("counts a step's results as one message, as the SDK holds them, so the last N messages span more tool uses after parallel calls", () => {
    const messages: Message[] = [
      { role: 'user', content: 'look around' },
      {
        role: 'assistant',
        content: null,
        tool_calls: ['a', 'b', 'c'].map((id) => ({ id, type: 'function' as const, function: { name: 'Read', arguments: `{"f":"${id}"}` } })),
      },
      ...['a', 'b', 'c'].map((id): Message => ({ role: 'tool', tool_call_id: id, content: id.repeat(40) })),
      { role: 'assistant', content: null, tool_calls: [{ id: 'd', type: 'function', function: { name: 'Bash', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'd', content: 'ok' },
    ];
    // The last 3 of the SDK's messages are the parallel step's results, the call d and its result: nothing goes.
    expect(pruneMessagesLike(messages, AiSdkPruneSchema.parse({ toolCalls: 'before-last-3-messages' }))).toEqual(messages);
    // The last 2 leave out the parallel step: its call and its three results go together.
    expect(pruneMessagesLike(messages, AiSdkPruneSchema.parse({ toolCalls: 'before-last-2-messages' })).map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
    ]);
  });

  it('removes calls with their results before the last N messages, by hand', () => {
    const messages = session();
    const out = pruneMessagesLike(messages, AiSdkPruneSchema.parse({ toolCalls: 'before-last-3-messages' }));
    // The last 3 messages are tool use 4 (call, result) and the reply: every earlier call and result goes, and the
    // assistant messages left with nothing go too.
    expect(out.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(resultOf(out, 4)).toBe('4'.repeat(400));
  });
});

describe('langchain:FILE, ClearToolUsesEdit as the context-editing middleware applies it', () => {
  const edit = (value: unknown) => LangChainClearToolUsesSchema.parse(value);

  it("counts as LangChain's default counter does: the messages' characters (text, tool calls as JSON, call ids) ÷ 4, rounded up", () => {
    const messages: Message[] = [
      { role: 'user', content: 'abcd' },
      {
        role: 'assistant',
        content: 'ok',
        reasoning_content: 'not counted',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'Read', arguments: '{ "f": 1 }' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'x'.repeat(9) },
    ];
    const calls = JSON.stringify([{ name: 'Read', args: { f: 1 }, id: 'c1', type: 'tool_call' }]).length;
    expect(langChainApproxTokens(messages)).toBe(Math.ceil((4 + 2 + calls + 9 + 2) / 4));
  });

  it('clears all but the last `keep` results once the messages reach the trigger, sparing excluded tools, inputs too when asked', () => {
    const messages = session();
    const tokens = langChainApproxTokens(messages);
    expect(applyLangChainClearToolUses(messages, edit({ trigger: { tokens: tokens + 1 } }), new WeakSet())).toBe(messages);
    const out = applyLangChainClearToolUses(
      messages,
      edit({ trigger: { tokens }, keep: { messages: 1 }, excludeTools: ['Grep'], clearToolInputs: true }),
      new WeakSet(),
    );
    expect([0, 1, 2, 3, 4].map((i) => resultOf(out, i))).toEqual(['[cleared]', '[cleared]', '[cleared]', '3'.repeat(400), '4'.repeat(400)]);
    expect([0, 1, 2, 3, 4].map((i) => inputOf(out, i))).toEqual(['{}', '{}', '{}', '{"n":3}', '{"n":4}']);
    expect(resultOf(messages, 0)).toBe('0'.repeat(400));
  });

  it('with clearAtLeast, clears kept results too, newest first, until that many tokens are freed', () => {
    const messages = session();
    // keep 3: uses 0 and 1 are cleared (2 x ~100 tokens); 150 more are wanted, so use 4, then 3, go as well.
    const out = applyLangChainClearToolUses(messages, edit({ trigger: { tokens: 1 }, clearAtLeast: 350 }), new WeakSet());
    expect([0, 1, 2, 3, 4].map((i) => resultOf(out, i))).toEqual(['[cleared]', '[cleared]', '2'.repeat(400), '[cleared]', '[cleared]']);
  });

  it("replays the clears as kept in the agent's history: a later prompt is measured and edited on the history as cleared", async () => {
    const dir = tempDir('runtime-policy');
    const file = join(dir, 'langchain.json');
    const t: Transcript = { id: 'hand', messages: session() };
    // The trigger is the prompt of the fifth call (four tool uses), keeping 2.
    const atFifth = langChainApproxTokens(t.messages.slice(0, 9));
    writeFileSync(file, JSON.stringify({ trigger: { tokens: atFifth }, keep: { messages: 2 } }));
    const prompts: Message[][] = [];
    const instance = resolvePolicy(`langchain:${file}`, tok).instantiate(policyEnv({ tokenizer: tok, window: 100_000 }));
    const micro = instance.micro!;
    const run = await replay(
      t,
      {
        ...instance,
        micro: async (request) => {
          const out = await micro(request);
          prompts.push([...out.messages]);
          return out;
        },
      },
      { tokenizer: tok, window: 100_000, cache: CACHE_RULES.ideal },
    );
    // The fifth call clears uses 0 and 1; at the sixth, the history as cleared is under the trigger, so use 2 stays
    // (measured on the whole history, as Anthropic's are, it would be over it and use 2 would go too).
    expect(langChainApproxTokens(t.messages.slice(0, 11))).toBeGreaterThan(atFifth);
    expect(prompts.map((p) => p.filter((m) => isToolMessage(m) && m.content === '[cleared]').length)).toEqual([0, 0, 0, 0, 2, 2]);
    expect(run.microCompactions).toBe(1);
  });

  it('refuses a trigger given as a fraction of the model profile, naming why', () => {
    const dir = tempDir('runtime-policy');
    const file = join(dir, 'fraction.json');
    writeFileSync(file, JSON.stringify({ trigger: { fraction: 0.8 } }));
    expect(() => resolvePolicy(`langchain:${file}`, tok)).toThrow(/trigger\[0\]\.fraction: .*model profile/);
  });
});

describe('config:FILE', () => {
  it('replays a ContextManager made from the file, as an agent would construct it', async () => {
    const dir = tempDir('runtime-policy');
    const file = join(dir, 'tcompact.json');
    const options = { window: 2000, micro: [], tokenizer: 'heuristic' };
    writeFileSync(file, JSON.stringify(options));
    const t = (await bundledTranscripts()).find((x) => countTranscript(x, tok).total > 4000)!;
    const fromFile = await replay(t, resolvePolicy(`config:${file}`, tok).instantiate(policyEnv({ tokenizer: tok, window: 2000 })), {
      tokenizer: tok,
      window: 2000,
      cache: CACHE_RULES.ideal,
    });
    // The file names no cache: the manager weighs its edits against the transcript's, as an agent sets its provider's.
    const direct = await replay(
      t,
      { manager: new ContextManager({ ...options, cache: 'ideal' } as never) },
      { tokenizer: tok, window: 2000, cache: CACHE_RULES.ideal },
    );
    expect(fromFile).toEqual(direct);
    expect(fromFile.compactions).toBeGreaterThan(0);
  });

  it("tells a file that names no cache the transcript's cache, and keeps the one a file names", () => {
    const dir = tempDir('runtime-policy');
    const env = policyEnv({ tokenizer: tok, window: 2000, cache: CACHE_RULES['anthropic-1h'] });
    const managerOf = (options: object) => {
      const file = join(dir, `${Object.keys(options).join('-')}.json`);
      writeFileSync(file, JSON.stringify(options));
      return resolvePolicy(`config:${file}`, tok).instantiate(env).manager!;
    };
    expect(managerOf({ window: 2000, tokenizer: 'heuristic' }).options.cache).toBe('anthropic-1h');
    expect(managerOf({ window: 2000, tokenizer: 'heuristic', cache: 'openai' }).options.cache).toBe('openai');
  });
});
