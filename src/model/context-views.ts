import type { Message } from './message.js';

/**
 * What a prompt sends in place of one of its messages: the message itself, another message that stands for it (a view:
 * the reply without its reasoning, a tool result's notice), or undefined when it is sent no more. `position` is the
 * message's place in the prompt it is asked of.
 */
export type MessageView = (message: Message, position: number) => Message | undefined;

/** One message a view changed: the message, and what stands in its place (undefined: left out). */
export type ViewChange = readonly [before: Message, after: Message | undefined];

/** A prompt's messages after a view, and each one it changed, in order. */
export interface ViewedMessages {
  /** The messages as the view leaves them: `messages` itself when the view changed none. */
  messages: readonly Message[];
  changed: ViewChange[];
}

/**
 * The one step by which a client sends some of a prompt's messages otherwise than it logged them: each message is
 * replaced by its view, in place, and the ones left out close up. A new array whenever anything changed: an earlier
 * prompt that holds the array keeps its own messages (the cache compares prompts by their messages' identity).
 */
export function replaceByViews(messages: readonly Message[], view: MessageView): ViewedMessages {
  const changed: ViewChange[] = [];
  let out: Message[] | undefined;
  messages.forEach((m, i) => {
    const after = view(m, i);
    if (after === m) {
      out?.push(m);
      return;
    }
    out ??= messages.slice(0, i);
    changed.push([m, after]);
    if (after !== undefined) out.push(after);
  });
  return { messages: out ?? messages, changed };
}

/** The tokens a view took out of a prompt: each changed message's size less its view's (0 for one left out). */
export function tokensTaken(changed: readonly ViewChange[], sizeOf: (m: Message) => number, viewSizeOf: (m: Message) => number = sizeOf): number {
  let n = 0;
  for (const [before, after] of changed) n += sizeOf(before) - (after === undefined ? 0 : viewSizeOf(after));
  return n;
}
