/**
 * A Messages API loop under tcompact/anthropic, with the real SDK and a scripted local fetch (no network): the editor
 * edits each request and places at most 4 cache breakpoints on the stable prefix and the tail.
 */
import Anthropic from '@anthropic-ai/sdk';
import { tcompactAnthropic } from 'tcompact/anthropic';

const FILE = Array.from({ length: 200 }, (_, i) => `line ${i}: value ${(i * 7919) % 1000}`).join('\n');
let call = 0;
const client = new Anthropic({
  apiKey: 'not-used',
  baseURL: 'http://127.0.0.1:9',
  fetch: async (_url: string | URL | Request, init?: RequestInit) => {
    call++;
    const body = init!.body as string;
    console.log(`call ${call}: ${body.length} bytes, ${(body.match(/"cache_control"/g) ?? []).length} breakpoints`);
    const done = call > 12;
    const content = done ? [{ type: 'text', text: 'Done.' }] : [{ type: 'tool_use', id: `toolu_${call}`, name: 'read', input: { path: `f${call}.txt` } }];
    const reply = {
      id: `msg_${call}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-6',
      content,
      stop_reason: done ? 'end_turn' : 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    };
    return new Response(JSON.stringify(reply), { status: 200, headers: { 'content-type': 'application/json' } });
  },
});

const edit = tcompactAnthropic(
  { window: 20_000, editTail: { results: 2, messages: 2 } },
  { onCheck: (r) => console.log(`  reason ${r.reason}, ${r.tokens} tokens`) },
);
const history: Anthropic.MessageParam[] = [{ role: 'user', content: 'Read the files one by one.' }];
for (;;) {
  const reply = await client.messages.create(await edit({ model: 'claude-sonnet-4-6', max_tokens: 1024, system: 'You read files.', messages: history }));
  history.push({ role: 'assistant', content: reply.content });
  const uses = reply.content.filter((b) => b.type === 'tool_use');
  if (uses.length === 0) break;
  history.push({ role: 'user', content: uses.map((b) => ({ type: 'tool_result' as const, tool_use_id: b.id, content: FILE })) });
}
console.log(`the history keeps all ${history.length} messages whole`);
