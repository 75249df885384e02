import { type Message, isTool } from '../model/message.js';
import { isObject } from './_items.js';

/**
 * Cline's text rewrites of what it sends (`context_history.json`, cline ContextManager `saveContextHistory`: an array of
 * `[messageIndex, [editType, [[blockIndex, [[timestamp, "text", [newText], metadata], ...]], ...]]]`): the file-read
 * notices that replace all but the latest read of a file, the truncation notice on message 1 and, after a context-window
 * error, the first user message's replacement. Each update applies to the requests made after it was written; the
 * latest update of a block wins (applyContextHistoryUpdates).
 */
export interface ContextUpdate {
  element: number;
  block: number;
  ts: number;
  text: string;
}

/** Every update of a `context_history.json`, in file order; malformed entries are left out (none is fatal). */
export function contextUpdates(value: unknown): ContextUpdate[] {
  const out: ContextUpdate[] = [];
  if (!Array.isArray(value)) return out;
  for (const entry of value) {
    if (!Array.isArray(entry) || typeof entry[0] !== 'number' || !Array.isArray(entry[1]) || !Array.isArray(entry[1][1])) continue;
    for (const blockEntry of entry[1][1] as unknown[]) {
      if (!Array.isArray(blockEntry) || typeof blockEntry[0] !== 'number' || !Array.isArray(blockEntry[1])) continue;
      for (const update of blockEntry[1] as unknown[]) {
        if (!Array.isArray(update) || typeof update[0] !== 'number' || update[1] !== 'text' || !Array.isArray(update[2]) || typeof update[2][0] !== 'string')
          continue;
        out.push({ element: entry[0], block: blockEntry[0], ts: update[0], text: update[2][0] });
      }
    }
  }
  return out;
}

/** Where a rewritten block sits among the transcript's messages: a tool result by its call, else a message and part. */
export type RewriteTarget = { callId: string } | { index: number; part: number };

/** The text of a history block as Cline rewrites it (setTextInBlock: a text block, or a tool_result's first text). */
function blockText(block: unknown): string | undefined {
  if (!isObject(block)) return undefined;
  if (block.type === 'text' && typeof block.text === 'string') return block.text;
  if (block.type !== 'tool_result') return undefined;
  if (typeof block.content === 'string') return block.content;
  const inner = Array.isArray(block.content) ? block.content[0] : undefined;
  return isObject(inner) && inner.type === 'text' && typeof inner.text === 'string' ? inner.text : undefined;
}

/**
 * The message that holds block `block` of history element `element`, whose messages are `messages[from, to)`: the
 * `tool` message of a tool result (by its call id), else the message whose content is the block's text or holds it
 * as a part (undefined when none does).
 */
export function rewriteTarget(raw: unknown, block: number, messages: readonly Message[], from: number, to: number): RewriteTarget | undefined {
  const content = isObject(raw) ? raw.content : undefined;
  const value = Array.isArray(content) ? content[block] : block === 0 ? { type: 'text', text: content } : undefined;
  const text = blockText(value);
  if (text === undefined) return undefined;
  if (isObject(value) && value.type === 'tool_result' && typeof value.tool_use_id === 'string') return { callId: value.tool_use_id };
  for (let i = from; i < to; i++) {
    const m = messages[i];
    if (isTool(m) && (m.content === text || (Array.isArray(m.content) && m.content.some((p) => p.type === 'text' && p.text === text))))
      return { callId: m.tool_call_id };
    if (m.content === text) return { index: i, part: -1 };
    if (Array.isArray(m.content)) {
      const part = m.content.findIndex((p) => p.type === 'text' && p.text === text);
      if (part >= 0) return { index: i, part };
    }
  }
  return undefined;
}
