import { type BaseMessage, ToolMessage } from '@langchain/core/messages';
import { createMiddleware } from 'langchain';
import type { ContextManagerOptionsInput } from '../../context/options.js';
import type { Message, ToolMessage as CanonicalTool } from '../../model/message.js';
import { type AdapterHooks, ManagedConversation } from '../conversation.js';
import { MadeOnce } from '../made-once.js';
import { fromLangChainMessage, toLangChainMessage } from './langchain-messages.js';

/** The conversation of a thread: its manager and the map between its messages and canonical ones. */
interface Thread {
  conversation: ManagedConversation;
  messages: LangChainMessageMap;
}

/**
 * An agent middleware for `createAgent` that runs a ContextManager before every model call. Its edits apply to the
 * request (`wrapModelCall`), never to the agent's state: the state keeps the whole history (for checkpointers and
 * `tcompact restore`), and the prompt sent is the manager's last prompt followed by what the state gained since, as
 * `simulate --policy config:FILE` replays it. One manager per thread (`configurable.thread_id`; one for all calls
 * without). Throws E_CONFIG on bad options, naming each bad path.
 */
export function tcompactMiddleware(options: ContextManagerOptionsInput, hooks: AdapterHooks = {}) {
  // Built now so bad options fail when the middleware is made, not at the first call.
  const first = new ManagedConversation(options, hooks);
  const threads = new Map<string, Thread>();
  const threadOf = (id: string): Thread => {
    let thread = threads.get(id);
    if (!thread) {
      thread = { conversation: threads.size === 0 ? first : new ManagedConversation(options, hooks), messages: new LangChainMessageMap() };
      threads.set(id, thread);
    }
    return thread;
  };
  return createMiddleware({
    name: 'TcompactContextMiddleware',
    wrapModelCall: async (request, handler) => {
      const id = (request.runtime as { configurable?: { thread_id?: string } } | undefined)?.configurable?.thread_id ?? '';
      const thread = threadOf(id);
      const { messages } = await thread.conversation.prompt(thread.messages.canonical(request.messages));
      return handler({ ...request, messages: thread.messages.back(messages) });
    },
  });
}

/** The agent's messages as canonical ones (each converted once), and back: unchanged ones to their own objects. */
class LangChainMessageMap {
  private readonly memo = new WeakMap<BaseMessage, Message>();
  private readonly origin = new WeakMap<Message, BaseMessage>();
  /** Tool messages by call id, for a result the manager replaced. */
  private readonly results = new Map<string, ToolMessage>();
  /** The LangChain message made for each message of the manager's own. */
  private readonly made = new MadeOnce<BaseMessage | undefined>();

  canonical(history: readonly BaseMessage[]): Message[] {
    const out: Message[] = [];
    for (const m of history) {
      let converted = this.memo.get(m);
      if (!converted) {
        converted = fromLangChainMessage(m);
        if (!converted) continue;
        this.memo.set(m, converted);
        this.origin.set(converted, m);
        if (ToolMessage.isInstance(m)) this.results.set(m.tool_call_id, m);
      }
      out.push(converted);
    }
    return out;
  }

  back(prompt: readonly Message[]): BaseMessage[] {
    return prompt.flatMap((m) => {
      const origin = this.origin.get(m);
      if (origin) return [origin];
      const earlier = m.role === 'tool' ? this.results.get((m as CanonicalTool).tool_call_id) : undefined;
      const made = this.made.of(m, [earlier], () => this.make(m, earlier));
      return made ? [made] : [];
    });
  }

  /** A message the manager made (or edited) as a LangChain message: a tool result keeps its earlier message's fields. */
  private make(m: Message, earlier: ToolMessage | undefined): BaseMessage | undefined {
    const fresh = toLangChainMessage(m);
    if (!fresh) return undefined;
    if (earlier)
      return new ToolMessage({ content: fresh.content, tool_call_id: earlier.tool_call_id, name: earlier.name, status: (fresh as ToolMessage).status });
    return fresh;
  }
}
