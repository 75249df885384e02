/**
 * A createAgent loop under tcompact/langchain, with a scripted chat model and no network: the model reads a large file
 * again and again; the middleware edits each request, and the agent's state keeps the whole history.
 */
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { createAgent, tool } from 'langchain';
import { tcompactMiddleware } from 'tcompact/langchain';
import { z } from 'zod';

const FILE = Array.from({ length: 200 }, (_, i) => `line ${i}: value ${(i * 7919) % 1000}`).join('\n');

class ScriptedModel extends BaseChatModel {
  private call = 0;
  _llmType(): string {
    return 'scripted';
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.call++;
    console.log(`call ${this.call}: ${messages.length} messages, ${messages.filter((m) => m.content === FILE).length} whole results`);
    const done = this.call > 12;
    const message = new AIMessage(
      done ? 'Done.' : { content: '', tool_calls: [{ id: `call_${this.call}`, name: 'read', args: { path: `f${this.call}.txt` } }] },
    );
    return { generations: [{ text: '', message }] };
  }
  override bindTools(): this {
    return this;
  }
}

const read = tool(async () => FILE, { name: 'read', description: 'Reads a file', schema: z.object({ path: z.string() }) });
const agent = createAgent({
  model: new ScriptedModel({}),
  tools: [read],
  middleware: [
    tcompactMiddleware({ window: 20_000, editTail: { results: 2, messages: 2 } }, { onCheck: (r) => console.log(`  reason ${r.reason}, ${r.tokens} tokens`) }),
  ],
});
const { messages } = await agent.invoke({ messages: [new HumanMessage('Read the files one by one.')] }, { recursionLimit: 100 });
console.log(`the agent's state keeps ${messages.filter((m) => m.content === FILE).length} whole results`);
