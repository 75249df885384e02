/**
 * A generateText agent loop under tcompact/ai-sdk, with a scripted model and no network: the model reads a large file
 * again and again; the manager masks the old results once they pay for the cache rewrite, and says why at each step.
 */
import { generateText, jsonSchema, stepCountIs, tool, type ModelMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { tcompactPrepareStep } from 'tcompact/ai-sdk';

const FILE = Array.from({ length: 200 }, (_, i) => `line ${i}: value ${(i * 7919) % 1000}`).join('\n');
let call = 0;
const model = new MockLanguageModelV3({
  doGenerate: async () => {
    call++;
    const done = call > 12;
    return {
      content: done
        ? [{ type: 'text', text: 'Done.' }]
        : [{ type: 'tool-call', toolCallId: `call_${call}`, toolName: 'read', input: JSON.stringify({ path: `f${call}.txt` }) }],
      finishReason: { unified: done ? 'stop' : 'tool-calls', raw: undefined },
      usage: { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } },
      warnings: [],
    };
  },
});
const read = tool({ inputSchema: jsonSchema<{ path: string }>({ type: 'object' }), execute: async () => FILE });

const prepareStep = tcompactPrepareStep(
  { window: 20_000, editTail: { results: 2, messages: 2 } },
  { onCheck: (r) => console.log(`step: ${r.tokensBefore} -> ${r.tokens} tokens, reason ${r.reason}`) },
);
const history: ModelMessage[] = [{ role: 'user', content: 'Read the files one by one.' }];
const { response, steps } = await generateText({ model, tools: { read }, messages: history, prepareStep, stopWhen: stepCountIs(20) });
const kept = response.messages.filter((m) => m.role === 'tool').length;
console.log(`${steps.length} steps; the SDK's history keeps all ${kept} tool results whole`);
