import { AIMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { ChatResult } from '@langchain/core/outputs';
import { createAgent, createMiddleware, tool as langChainTool } from 'langchain';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { CheckReport } from '../../src/adapters/conversation.js';
import { fromLangChain, fromLangChainMessage, toLangChain, toLangChainMessage } from '../../src/adapters/langchain/langchain-messages.js';
import { tcompactMiddleware } from '../../src/adapters/langchain/middleware.js';
import type { ContextManagerOptionsInput } from '../../src/context/options.js';
import { type AssistantMessage, type Message, isAssistant, isTool } from '../../src/model/message.js';
import { toAnthropicBlocks } from '../../src/adapters/anthropic/anthropic-messages.js';
import type { Transcript } from '../../src/model/transcript.js';
import { inCallOrder } from '../helpers/runtime-messages.js';
import { tempDir } from '../helpers/temp-dir.js';
import {
  LOOPS,
  type Branch,
  asRuntimeHolds,
  branchesOf,
  clockOf,
  flagsAsHeld,
  inSessionOrder,
  loopSessions,
  costOfPrompts,
  costOfReplay,
  replayOf,
  resultsOf,
  sameRefs,
  memo,
  promptComparer,
  RunMemo,
  toolNames,
  writeConfig,
} from './session-loop.js';

let sessions: Transcript[] = [];
beforeAll(async () => {
  sessions = await loopSessions();
});

/** A chat model that answers each call with the session's next recorded reply, and keeps the prompts it was sent. */
class ScriptedChatModel extends BaseChatModel {
  readonly prompts: BaseMessage[][] = [];

  constructor(private readonly next: () => Message) {
    super({});
  }

  _llmType(): string {
    return 'scripted';
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.prompts.push([...messages]);
    const reply = this.next();
    if (!isAssistant(reply)) throw new Error(`expected an assistant message, got ${reply.role}`);
    const message = chatAnthropicReply(reply);
    return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] };
  }

  override bindTools(): this {
    return this;
  }
}

/**
 * A recorded reply as ChatAnthropic returns it: the reply's blocks (thinking, text, tool_use) as its `content`, a lone
 * text block as a string, and the calls with their arguments parsed as `tool_calls`.
 */
function chatAnthropicReply(reply: AssistantMessage): AIMessage {
  const { blocks } = toAnthropicBlocks(reply);
  const content = blocks.length === 1 && blocks[0].type === 'text' ? blocks[0].text : (blocks as { type: string }[]);
  const tool_calls = (reply.tool_calls ?? []).map((c) => ({
    id: c.id,
    name: c.function.name,
    args: JSON.parse(c.function.arguments) as Record<string, unknown>,
    type: 'tool_call' as const,
  }));
  return new AIMessage({ content, tool_calls });
}

/** A message's text as the model reads it: its text blocks (a lone one as a string), not its thinking or tool_use blocks. */
function textOf(content: BaseMessage['content']): BaseMessage['content'] {
  if (typeof content === 'string') return content;
  const texts = (content as { type: string; text?: string }[]).filter((b) => !['thinking', 'redacted_thinking', 'reasoning', 'tool_use'].includes(b.type));
  return texts.length === 0 ? '' : texts.length === 1 && texts[0].type === 'text' ? texts[0].text! : texts;
}

/** What a LangChain message says, as the model reads it, and the reasoning the manager counts in it. */
const shape = (m: BaseMessage) => ({
  type: m.getType(),
  content: textOf(m.content),
  reasoning: AIMessage.isInstance(m) ? (fromLangChainMessage(m) as AssistantMessage).reasoning_content : undefined,
  calls: AIMessage.isInstance(m) ? (m.tool_calls ?? []).map((c) => ({ id: c.id, name: c.name, args: c.args })) : undefined,
  callId: ToolMessage.isInstance(m) ? m.tool_call_id : undefined,
});

/**
 * The session run as a LangChain agent with the middleware: each user turn is an invoke on the state the last one
 * returned and the user's new messages; the model answers with the recorded replies, each tool with its recorded result,
 * and the agent ends a turn where the session's user spoke next. Returns the prompts the model got and the final state.
 * A branch of a forked session runs as a conversation of its own, under a middleware of its own.
 */
async function langChainLoop(
  branch: Branch,
  options: ContextManagerOptionsInput,
  reports: CheckReport[],
): Promise<{ prompts: BaseMessage[][]; state: BaseMessage[] }> {
  const messages = branch.messages;
  const results = resultsOf(messages);
  let at = 0;
  const model = new ScriptedChatModel(() => messages[at++]);
  const tools = toolNames(messages).map((name) =>
    // The recorded result, in parts where the session recorded parts.
    langChainTool((_input: unknown, config: { toolCall?: { id?: string } }) => toLangChainMessage(results.get(config.toolCall!.id!)!) as ToolMessage, {
      name,
      description: name,
      schema: z.looseObject({}),
    }),
  );
  const turns = createMiddleware({
    name: 'RecordedTurns',
    beforeModel: {
      canJumpTo: ['end'],
      hook: () => {
        while (at < messages.length && isTool(messages[at])) at++;
        return at < messages.length && isAssistant(messages[at]) ? undefined : { jumpTo: 'end' as const };
      },
    },
  });
  const agent = createAgent({
    model,
    tools,
    middleware: [turns, tcompactMiddleware(options, { now: clockOf(branch.times), onCheck: (r) => reports.push(r) })],
  });
  // A branch of a forked session starts from the history at its fork, the replies as the model gave them.
  let state: BaseMessage[] = branch.start.map((m) => (isAssistant(m) ? chatAnthropicReply(m) : toLangChainMessage(m)!));
  while (at < messages.length) {
    const input: Message[] = [];
    while (at < messages.length && !isAssistant(messages[at])) input.push(messages[at++]);
    if (at >= messages.length) break;
    state = (await agent.invoke({ messages: [...state, ...toLangChain(input)] }, { recursionLimit: 100_000 })).messages;
  }
  return { prompts: model.prompts, state };
}

/**
 * The session through the middleware's `wrapModelCall` alone, as createAgent calls it: each request holds the history
 * so far (the user's messages, the recorded replies, each call's recorded result), and the handler answers with the
 * session's next reply. LangChain's graph costs most of a createAgent loop's time (a run tree, checkpoint and state
 * reduction at every node of every step); the compaction loop runs under createAgent and shows what the agent adds.
 */
async function wrapModelCallLoop(
  branch: Branch,
  options: ContextManagerOptionsInput,
  reports: CheckReport[],
): Promise<{ prompts: BaseMessage[][]; state: BaseMessage[] }> {
  const middleware = tcompactMiddleware(options, { now: clockOf(branch.times), onCheck: (r) => reports.push(r) });
  const wrap = middleware.wrapModelCall!;
  const prompts: BaseMessage[][] = [];
  const state: BaseMessage[] = branch.start.map((m) => (isAssistant(m) ? chatAnthropicReply(m) : toLangChainMessage(m)!));
  // Each step's results in the order of its calls, as LangChain's tool node returns them.
  for (const m of inCallOrder(branch.messages)) {
    if (!isAssistant(m)) {
      state.push(...toLangChain([m]));
      continue;
    }
    const reply = await wrap({ messages: [...state], runtime: {} } as unknown as Parameters<typeof wrap>[0], async (request) => {
      prompts.push([...request.messages]);
      return chatAnthropicReply(m);
    });
    state.push(reply as AIMessage);
  }
  return { prompts, state };
}

describe('tcompact/langchain: fromLangChainMessage', () => {
  it("counts ChatAnthropic's thinking blocks as reasoning, beside additional_kwargs.reasoning_content; blocks without text are counted as the Claude Code reader counts them", () => {
    const content = [
      { type: 'thinking', thinking: 'First, the queue.', signature: 'sig1' },
      { type: 'thinking', thinking: '', signature: 'sig2' },
      { type: 'redacted_thinking', data: 'EuYBCkQ' },
      { type: 'text', text: 'The queue waits on parse_request.' },
      { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } },
    ];
    const ai = new AIMessage({ content, tool_calls: [{ id: 'toolu_1', name: 'Bash', args: { command: 'ls' }, type: 'tool_call' }] });
    expect(fromLangChainMessage(ai)).toEqual({
      role: 'assistant',
      content: 'The queue waits on parse_request.',
      reasoning_content: 'First, the queue.',
      thinking_blocks_without_text: 1,
      redacted_thinking_blocks: 1,
      tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'Bash', arguments: '{"command":"ls"}' } }],
    });
    const both = new AIMessage({
      content: [
        { type: 'reasoning', reasoning: 'standard block' },
        { type: 'text', text: 'ok' },
      ],
      additional_kwargs: { reasoning_content: 'kwargs' },
    });
    expect(fromLangChainMessage(both)).toEqual({ role: 'assistant', content: 'ok', reasoning_content: 'kwargs\n\nstandard block' });
  });
});

/** The edits loop's calls go through wrapModelCall alone (see wrapModelCallLoop), the compaction loop's through createAgent. */
const RUNS = LOOPS.map((loop) => ({ ...loop, agent: loop.name === 'compaction' }));

describe('tcompact/langchain: tcompactMiddleware in a createAgent loop', () => {
  it.each(RUNS)(
    'with the $name options (createAgent: $agent), the model gets at each call of every bundled Claude Code session the prompt `simulate --policy config:FILE` replays, at the cost it states',
    async ({ options, runtimeView, agent }) => {
      const config = writeConfig(tempDir('langchain-loop'), 'tcompact', options);
      let edited = 0;
      for (const recorded of sessions) {
        const roundTrip = (m: Message) => [fromLangChainMessage(toLangChainMessage(m))!];
        const t = runtimeView ? asRuntimeHolds(recorded, roundTrip) : flagsAsHeld(recorded, roundTrip);
        const reports: CheckReport[] = [];
        const { branches, order } = branchesOf(t);
        const runs = [];
        for (const branch of branches) runs.push(await (agent ? langChainLoop : wrapModelCallLoop)(branch, options, reports));
        const prompts = inSessionOrder(
          runs.map((r) => r.prompts),
          order,
        );
        const ours = await replayOf(t, config, options.window);
        expect(prompts.length, t.id).toBe(ours.prompts.length);
        // Each message is converted once: the prompts of a session share their messages, on both sides.
        const shapeOf = memo(shape);
        const expected = new RunMemo(
          () => true,
          (run) => toLangChain(run).map(shape),
        );
        const samePrompt = promptComparer();
        ours.prompts.forEach((prompt, call) => {
          samePrompt(prompts[call].map(shapeOf), expected.of(inCallOrder(prompt)), `${t.id}, call ${call}`);
        });
        expect(costOfPrompts(t, ours.prompts)).toEqual(costOfReplay(ours.stats));
        const canonical = memo((m: BaseMessage) => fromLangChain([m]));
        expect(
          costOfPrompts(
            t,
            prompts.map((p) => sameRefs(p.flatMap(canonical))),
          ),
        ).toEqual(costOfPrompts(t, ours.prompts.map(sameRefs)));
        // The agent's state keeps the whole history: every result the session recorded, as recorded.
        if (agent)
          runs.forEach(({ state }, b) => {
            expect(fromLangChain(state).filter(isTool)).toEqual(
              inCallOrder([...branches[b].start, ...branches[b].messages])
                .filter(isTool)
                .map((m) => fromLangChainMessage(toLangChainMessage(m))),
            );
          });
        edited += reports.filter((r) => r.reason !== 'none').length;
      }
      expect(edited).toBeGreaterThan(0);
    },
    180_000,
  );
});
