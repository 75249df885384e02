import type { Message } from '../model/message.js';
import type { Transcript } from '../model/transcript.js';
import { type Breakdown, CATEGORIES, type TranscriptTokens, addMessage, emptyBreakdown, toolTokens, totalOf } from './breakdown.js';
import type { Tokenizer } from './tokenizer.js';

/**
 * The tokens of `next`, a transcript made from `previous` (whose tokens are `counted`), counting only the messages
 * that are not in both: equal to `countTranscript(next)`. It is exact whatever `next` holds, and cheap when `next`
 * keeps the messages it keeps as the same objects in the same order, as strategies do.
 */
export function recountTranscript(previous: Transcript, counted: TranscriptTokens, next: Transcript, tok: Tokenizer): TranscriptTokens {
  const b: Breakdown = { ...counted.byCategory };
  if (next.messages !== previous.messages) {
    const gone = emptyBreakdown();
    const come = emptyBreakdown();
    addDifferences(previous.messages, next.messages, gone, come, tok);
    for (const c of CATEGORIES) b[c] += come[c] - gone[c];
  }
  if (next.tools !== previous.tools) b.tools = next.tools && next.tools.length > 0 ? toolTokens(next.tools, tok) : 0;
  return { total: totalOf(b), byCategory: b };
}

/**
 * Counts into `gone` the messages of `from` that are not paired with the same object in `to`, and into `come` those
 * of `to` not paired: the tokens of `to` are then those of `from` less `gone` plus `come`. Every message of both is
 * either paired or counted once, so this holds however the two differ; pairing in order finds the unchanged ones.
 */
function addDifferences(from: readonly Message[], to: readonly Message[], gone: Breakdown, come: Breakdown, tok: Tokenizer): void {
  let start = 0;
  const shorter = Math.min(from.length, to.length);
  while (start < shorter && from[start] === to[start]) start++;
  let endFrom = from.length;
  let endTo = to.length;
  while (endFrom > start && endTo > start && from[endFrom - 1] === to[endTo - 1]) {
    endFrom--;
    endTo--;
  }
  if (endFrom === endTo) {
    // Messages replaced in place (masked, stripped): pair them by position.
    for (let i = start; i < endFrom; i++) {
      if (from[i] === to[i]) continue;
      addMessage(gone, from[i], tok);
      addMessage(come, to[i], tok);
    }
    return;
  }
  // Messages removed or inserted: a message of `from` that is still in `to` further on means `to`'s is a new one.
  const kept = new Set<Message>();
  for (let j = start; j < endTo; j++) kept.add(to[j]);
  let i = start;
  let j = start;
  while (i < endFrom && j < endTo) {
    if (from[i] === to[j]) {
      i++;
      j++;
    } else if (kept.has(from[i])) addMessage(come, to[j++], tok);
    else addMessage(gone, from[i++], tok);
  }
  for (; i < endFrom; i++) addMessage(gone, from[i], tok);
  for (; j < endTo; j++) addMessage(come, to[j], tok);
}
