/** A recorded session as the AI SDK's mock model and tools answer it: its replies and its tool results, in parts. */
import { type ModelMessage, type PrepareStepFunction, type ToolSet, generateText, jsonSchema, tool as aiTool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { toModelMessage, toModelMessages, toolOutput } from '../../src/adapters/ai-sdk/model-messages.js';
import { contentText } from '../../src/model/content.js';
import { type Message, type ToolMessage, isAssistant, isTool } from '../../src/model/message.js';
import { resultsOf, toolNames } from '../adapters/session-loop.js';

/** A reply of the session as the mock model's answer to one call. */
export function recordedAnswer(reply: Message) {
  if (!isAssistant(reply)) throw new Error(`expected an assistant message, got ${reply.role}`);
  const calls = reply.tool_calls ?? [];
  const [message] = toModelMessage(reply, () => '') as unknown as [{ content: Exclude<Extract<ModelMessage, { role: 'assistant' }>['content'], string> }];
  return {
    // The parts the session recorded, each text part its own (a model returns a call's arguments as its JSON text).
    content: message.content.map((p) => (p.type === 'tool-call' ? { ...p, input: calls.find((c) => c.id === p.toolCallId)!.function.arguments } : p)) as {
      type: 'text';
      text: string;
    }[],
    finishReason: { unified: calls.length > 0 ? ('tool-calls' as const) : ('stop' as const), raw: undefined },
    usage: { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } },
    warnings: [],
  };
}

/** Tools that answer each call with the session's recorded result (a failure where it recorded one), in its parts. */
export function recordedTools(names: readonly string[], results: ReadonlyMap<string, ToolMessage>) {
  return Object.fromEntries(
    names.map((name) => [
      name,
      aiTool({
        inputSchema: jsonSchema<Record<string, unknown>>({ type: 'object' }),
        execute: async (_input, { toolCallId }) => {
          const result = results.get(toolCallId)!;
          if (result.is_error) throw new Error(contentText(result.content));
          return contentText(result.content);
        },
        toModelOutput: ({ toolCallId }) => toolOutput(results.get(toolCallId)!) as { type: 'text'; value: string },
      }),
    ]),
  );
}

/** What `generateText` calls before each step: it may hand the model other messages than the SDK's history. */
export type StepPreparer = PrepareStepFunction<ToolSet>;

/**
 * A session's replayed messages run as an AI SDK agent: each user turn is a generateText call on the whole history,
 * `prepareStep` applied before every step, the mock model answering with the recorded replies and each tool with its
 * recorded result (a failure where the session recorded one); the loop stops where the session's user spoke next.
 * Returns the history the SDK kept. A branch of a forked session starts from the history at its fork (`start`).
 */
export async function recordedGenerateTextLoop(
  messages: readonly Message[],
  prepareStep: StepPreparer,
  start: readonly Message[] = [],
): Promise<ModelMessage[]> {
  let at = 0;
  const model = new MockLanguageModelV3({ doGenerate: async () => recordedAnswer(messages[at++]) });
  const tools: ToolSet = recordedTools(toolNames(messages), resultsOf(messages));
  let history: ModelMessage[] = toModelMessages(start);
  while (at < messages.length) {
    const input: Message[] = [];
    while (at < messages.length && !isAssistant(messages[at])) input.push(messages[at++]);
    history = [...history, ...toModelMessages(input)];
    if (at >= messages.length) break;
    const run = await generateText({
      model,
      tools,
      messages: history,
      prepareStep,
      stopWhen: () => {
        while (at < messages.length && isTool(messages[at])) at++;
        return !(at < messages.length && isAssistant(messages[at]));
      },
    });
    history = [...history, ...run.response.messages];
  }
  return history;
}
