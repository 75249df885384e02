import { type ModelMessage, generateText, jsonSchema, tool as aiTool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { beforeAll, describe, expect, it } from 'vitest';
import { fromModelMessages, toModelMessage, toModelMessages, toolOutput } from '../../src/adapters/ai-sdk/model-messages.js';
import { tcompactPrepareStep } from '../../src/adapters/ai-sdk/prepare-step.js';
import type { CheckReport } from '../../src/adapters/conversation.js';
import type { ContextManagerOptionsInput } from '../../src/context/options.js';
import { contentText } from '../../src/model/content.js';
import { type Message, isAssistant, isTool } from '../../src/model/message.js';
import type { Transcript } from '../../src/model/transcript.js';
import { groupToolResults, inCallOrder, plain } from '../helpers/runtime-messages.js';
import { tempDir } from '../helpers/temp-dir.js';
import {
  LOOPS,
  asRuntimeHolds,
  bundledSessions,
  costOfPrompts,
  costOfReplay,
  replayClock,
  replayOf,
  replayedMessages,
  resultsOf,
  sameRefs,
  sameRefsJson,
  toolNames,
  writeConfig,
} from './session-loop.js';

let sessions: Transcript[] = [];
beforeAll(async () => {
  sessions = await bundledSessions();
});

/** A reply of the session as the mock model's answer to one call. */
function answer(reply: Message) {
  if (!isAssistant(reply)) throw new Error(`expected an assistant message, got ${reply.role}`);
  const calls = reply.tool_calls ?? [];
  const [message] = toModelMessage(reply, () => '') as unknown as [{ content: Exclude<Extract<ModelMessage, { role: 'assistant' }>['content'], string> }];
  return {
    // The parts the session recorded (a model returns a call's arguments as its JSON text).
    content: message.content.map((p) => (p.type === 'tool-call' ? { ...p, input: calls.find((c) => c.id === p.toolCallId)!.function.arguments } : p)) as {
      type: 'text';
      text: string;
    }[],
    finishReason: { unified: calls.length > 0 ? ('tool-calls' as const) : ('stop' as const), raw: undefined },
    usage: { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } },
    warnings: [],
  };
}

/**
 * The session run as an AI SDK agent under the adapter: each user turn is a generateText call on the whole history,
 * the model answering with the recorded replies and each tool with its recorded result (a failure where the session
 * recorded one); the loop stops where the session's user spoke next. Returns the messages of every step sent.
 */
async function aiSdkLoop(
  t: Transcript,
  options: ContextManagerOptionsInput,
  reports: CheckReport[] = [],
): Promise<{ sent: ModelMessage[][]; history: ModelMessage[] }> {
  const messages = replayedMessages(t);
  const results = resultsOf(messages);
  let at = 0;
  const sent: ModelMessage[][] = [];
  const model = new MockLanguageModelV3({
    doGenerate: async () => answer(messages[at++]),
  });
  const tools = Object.fromEntries(
    toolNames(messages).map((name) => [
      name,
      aiTool({
        inputSchema: jsonSchema<Record<string, unknown>>({ type: 'object' }),
        execute: async (_input, { toolCallId }) => {
          const result = results.get(toolCallId)!;
          if (result.is_error) throw new Error(contentText(result.content));
          return contentText(result.content);
        },
        // A result recorded in parts goes back to the model in parts, as the session's did.
        toModelOutput: ({ toolCallId }) => toolOutput(results.get(toolCallId)!) as { type: 'text'; value: string },
      }),
    ]),
  );
  const prepareStep = tcompactPrepareStep(options, { now: replayClock(t), onCheck: (r) => reports.push(r) });
  let history: ModelMessage[] = [];
  while (at < messages.length) {
    const input: Message[] = [];
    while (at < messages.length && !isAssistant(messages[at])) input.push(messages[at++]);
    history = [...history, ...toModelMessages(input)];
    if (at >= messages.length) break;
    const run = await generateText({
      model,
      tools,
      messages: history,
      prepareStep: async (step) => {
        const prepared = await prepareStep(step);
        sent.push(prepared.messages);
        return prepared;
      },
      stopWhen: () => {
        while (at < messages.length && isTool(messages[at])) at++;
        return !(at < messages.length && isAssistant(messages[at]));
      },
    });
    history = [...history, ...run.response.messages];
  }
  return { sent, history };
}

describe('tcompact/ai-sdk: tcompactPrepareStep in a generateText loop', () => {
  it.each(LOOPS)(
    'with the $name options, sends at each step of every bundled Claude Code session the prompt `simulate --policy config:FILE` replays, at the cost it states',
    async ({ options, runtimeView }) => {
      const config = writeConfig(tempDir('ai-sdk-loop'), 'tcompact', options);
      let edited = 0;
      for (const recorded of sessions) {
        const t = runtimeView ? asRuntimeHolds(recorded, (m) => fromModelMessages(toModelMessages([m]))) : recorded;
        const reports: CheckReport[] = [];
        const { sent, history } = await aiSdkLoop(t, options, reports);
        const ours = await replayOf(t, config, options.window);
        expect(sent.length, t.id).toBe(ours.prompts.length);
        ours.prompts.forEach((prompt, call) => {
          expect(sameRefsJson(plain(sent[call])), `${t.id}, call ${call}`).toEqual(sameRefsJson(plain(groupToolResults(toModelMessages(inCallOrder(prompt))))));
        });
        // The replay's stated cost is the cost of its prompts; the runtime's prompts cost the same, refs named alike.
        expect(costOfPrompts(t, ours.prompts)).toEqual(costOfReplay(ours.stats));
        expect(
          costOfPrompts(
            t,
            sent.map((s) => sameRefs(fromModelMessages(s))),
          ),
        ).toEqual(costOfPrompts(t, ours.prompts.map(sameRefs)));
        // The SDK's history stays whole: every result the session recorded is there as it was.
        expect(fromModelMessages(history).filter(isTool).length).toBe(replayedMessages(t).filter(isTool).length);
        edited += reports.filter((r) => r.reason !== 'none').length;
      }
      expect(edited).toBeGreaterThan(0);
    },
    180_000,
  );
});
