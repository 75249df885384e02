import type { AIMessage, BaseMessage } from '@langchain/core/messages';
import type { CallIndex } from '../../src/adapters/call-index.js';

/** Same counting rules as src/tokens/breakdown.ts, on LangChain messages, memoized per message object. */
export function langChainCounter(count: (text: string) => number, index: CallIndex): (messages: BaseMessage[]) => number {
  const memo = new WeakMap<BaseMessage, number>();
  const one = (m: BaseMessage): number => {
    let n = memo.get(m);
    if (n !== undefined) return n;
    n = 3;
    if (typeof m.content === 'string') n += count(m.content);
    else
      for (const p of m.content as { type: string; text?: string; image_url?: { url: string } }[])
        n += p.type === 'image_url' ? Math.ceil((p.image_url?.url.length ?? 0) / 4) : count(p.text ?? '');
    if (m.getType() === 'ai') {
      const ai = m as AIMessage;
      const reasoning = ai.additional_kwargs.reasoning_content;
      if (typeof reasoning === 'string') n += count(reasoning);
      for (const c of ai.tool_calls ?? []) {
        const original = index.calls.get(c.id!);
        n += count(c.name) + count(original ? original.function.arguments : JSON.stringify(c.args));
      }
    }
    memo.set(m, n);
    return n;
  };
  return (messages) => {
    let total = 0;
    for (const m of messages) total += one(m);
    return total;
  };
}
