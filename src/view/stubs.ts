import { contentText } from '../model/content.js';
import type { Message } from '../model/message.js';
import { refsNamedIn } from '../model/ref.js';
import { type StubOwner, stubOwner } from '../strategies/stub-owner.js';

/** A placeholder found in a message: who wrote it, its text, and the refs its first line names. */
export interface Stub extends StubOwner {
  text: string;
  refs: string[];
}

const firstLine = (text: string): string => text.slice(0, text.indexOf('\n') === -1 ? text.length : text.indexOf('\n'));

function stubOf(text: string): Stub | undefined {
  const owner = stubOwner(text);
  return owner && { ...owner, text, refs: refsNamedIn(firstLine(text)) };
}

/** The texts of a message's content: the string, or each text part. */
function texts(m: Message): string[] {
  const content = (m as { content?: unknown }).content;
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((p: { type?: unknown; text?: unknown }) => (p.type === 'text' && typeof p.text === 'string' ? [p.text] : []));
}

/** The message is a placeholder standing for several messages (a summary, a checkpoint, a truncation marker). */
export function spanStub(m: Message): Stub | undefined {
  if (m.role !== 'user' && m.role !== 'assistant') return undefined;
  const stub = stubOf(contentText((m as { content?: Parameters<typeof contentText>[0] }).content));
  return stub?.span ? stub : undefined;
}

/** The placeholders in `after`'s content that `before` did not have: what a strategy put in place of its content. */
export function newStubs(before: Message, after: Message): Stub[] {
  const had = new Set(texts(before));
  return texts(after).flatMap((t) => {
    const stub = had.has(t) ? undefined : stubOf(t);
    return stub && !stub.span ? [stub] : [];
  });
}

/** The message's text with placeholders left out: what a strategy that replaced some of its content did not touch. */
export function textBesideStubs(m: Message): string {
  return texts(m)
    .filter((t) => stubOwner(t) === undefined)
    .join('\n');
}
