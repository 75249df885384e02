import { contentText } from './content.js';
import type { Message } from './message.js';
import { REF_LENGTH } from './ref.js';

/**
 * The first line of every summary message tcompact writes: `[tcompact summary of N messages] (ref: <16 hex>)`. The
 * ref names the side-store entry holding the JSON array of the messages the summary replaced, so `restore` can put
 * them back and a later summary can be made from them rather than from this summary.
 */
export const SUMMARY_PREFIX = '[tcompact summary';
/** The deterministic `checkpoint` strategy's messages are recognised the same way. */
export const CHECKPOINT_PREFIX = '[tcompact checkpoint';

/** The placeholder `classify-tangents` leaves where it removed a turn (not a summary: never expanded for summarize). */
export const TANGENT_PREFIX = '[tcompact removed tangent turn';

export function tangentPlaceholder(turn: number, messages: number, reason: string, ref: string | undefined): string {
  return `${TANGENT_PREFIX} ${turn}: ${messages} message${messages === 1 ? '' : 's'}]${ref ? ` (ref: ${ref})` : ''}\nReason: ${reason}`;
}

const REF_RE = new RegExp(`\\(ref: ([0-9a-f]{${REF_LENGTH}})\\)`);

export function summaryHeader(messages: number, ref: string | undefined): string {
  return `${SUMMARY_PREFIX} of ${messages} message${messages === 1 ? '' : 's'}]${ref ? ` (ref: ${ref})` : ''}`;
}

/**
 * A message that an earlier compaction wrote in place of other messages: a `user` or `assistant` message whose text
 * starts with one of the prefixes above. Returns the ref on its first line, if any.
 */
export function compactionMessage(m: Message): { ref: string | undefined } | undefined {
  if (m.role !== 'user' && m.role !== 'assistant') return undefined;
  const text = contentText((m as { content?: Parameters<typeof contentText>[0] }).content);
  if (!text.startsWith(SUMMARY_PREFIX) && !text.startsWith(CHECKPOINT_PREFIX)) return undefined;
  const firstLine = text.slice(0, text.indexOf('\n') === -1 ? text.length : text.indexOf('\n'));
  return { ref: REF_RE.exec(firstLine)?.[1] };
}

/** Looks a side-store ref up; undefined when it is unknown. */
export type RefLookup = (ref: string) => string | undefined;

/** The messages an earlier compaction's ref stands for, or undefined when the ref is unknown or not a message array. */
export function originalsOf(ref: string, lookup: RefLookup): Message[] | undefined {
  const data = lookup(ref);
  if (data === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(data);
    if (!Array.isArray(value) || !value.every((m) => m !== null && typeof m === 'object' && typeof (m as Message).role === 'string')) return undefined;
    return value as Message[];
  } catch {
    return undefined;
  }
}

/** Nesting depth up to which earlier compactions are expanded (a summary of a checkpoint of a summary...). */
const MAX_NESTING = 8;

/**
 * The messages with every earlier summary or checkpoint replaced by the originals it stands for (recursively), so a
 * new summary is made from the record, never from a summary. Unresolvable ones stay as they are.
 */
export function withOriginals(messages: readonly Message[], lookup: RefLookup, depth = 0): Message[] {
  const out: Message[] = [];
  for (const m of messages) {
    const marker = compactionMessage(m);
    const originals = marker?.ref !== undefined && depth < MAX_NESTING ? originalsOf(marker.ref, lookup) : undefined;
    if (originals) out.push(...withOriginals(originals, lookup, depth + 1));
    else out.push(m);
  }
  return out;
}
