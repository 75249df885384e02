import { type Message, isTool } from '../../model/message.js';
import type { Tokenizer } from '../../tokens/tokenizer.js';
import { renderSpan } from './render.js';

/** Splits messages into blocks that never separate a tool call from its results: a block starts at each non-tool message. */
function blocksOf(messages: readonly Message[]): Message[][] {
  const blocks: Message[][] = [];
  for (const m of messages) {
    if (blocks.length === 0 || !isTool(m)) blocks.push([m]);
    else blocks[blocks.length - 1].push(m);
  }
  return blocks;
}

export interface Chunk {
  rendered: string;
  from: number;
  to: number;
}

/**
 * Packs blocks greedily into parts whose rendering fits `budget` tokens. A block too big alone is rendered with each
 * message clipped (head and tail kept), halving the clip until it fits; undefined when nothing fits.
 */
export function chunksOf(source: readonly Message[], offset: number, budget: number, drop: number, tok: Tokenizer): Chunk[] | undefined {
  const chunks: Chunk[] = [];
  let parts: string[] = [];
  let used = 0;
  let start = offset;
  let at = offset;
  for (const block of blocksOf(source)) {
    let rendered = renderSpan(block, { offset: at, dropToolResults: drop, tokenizer: tok });
    let tokens = tok.count(rendered) + 1;
    for (let clipChars = budget * 2; tokens > budget; clipChars = Math.floor(clipChars / 2)) {
      if (clipChars < 256) return undefined;
      rendered = renderSpan(block, { offset: at, dropToolResults: drop, maxMessageChars: clipChars, tokenizer: tok });
      tokens = tok.count(rendered) + 1;
    }
    if (used + tokens > budget && parts.length > 0) {
      chunks.push({ rendered: parts.join('\n\n'), from: start, to: at });
      parts = [];
      used = 0;
      start = at;
    }
    parts.push(rendered);
    used += tokens;
    at += block.length;
  }
  if (parts.length > 0) chunks.push({ rendered: parts.join('\n\n'), from: start, to: at });
  return chunks;
}
