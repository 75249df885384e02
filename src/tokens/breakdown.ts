import { type ContentPart, isAttachmentPart } from '../model/content.js';
import { type Message, isKnownRole } from '../model/message.js';
import type { ToolDef, Transcript } from '../model/transcript.js';
import { imageTokens } from './image-tokens.js';
import type { Tokenizer } from './tokenizer.js';

/**
 * Where tokens go. `overhead` is the per-message framing: {@link MESSAGE_OVERHEAD_TOKENS} per message, the figure
 * OpenAI documents for its chat format (`<|start|>role ... <|end|>`). `other` is messages with an unknown role,
 * counted on their JSON.
 */
export const CATEGORIES = ['system', 'tools', 'user', 'assistant', 'reasoning', 'toolCalls', 'toolResults', 'attachments', 'other', 'overhead'] as const;
type Category = (typeof CATEGORIES)[number];
export type Breakdown = Record<Category, number>;

export const MESSAGE_OVERHEAD_TOKENS = 3;
/**
 * Attachments are billed by the model's own rules, not by BPE over their base64. An image is counted as Anthropic
 * bills it, from the size in its header (see image-tokens.ts); files and audio as ceil(payload characters / 4), a
 * stable size figure, documented as an estimate.
 */
const ATTACHMENT_CHARS_PER_TOKEN = 4;

export function emptyBreakdown(): Breakdown {
  return { system: 0, tools: 0, user: 0, assistant: 0, reasoning: 0, toolCalls: 0, toolResults: 0, attachments: 0, other: 0, overhead: 0 };
}

// Written out field by field: a loop over CATEGORIES is a keyed load per field, and these run for every message of
// every step. The breakdown tests check them against CATEGORIES.
export function addBreakdown(into: Breakdown, from: Readonly<Breakdown>): Breakdown {
  into.system += from.system;
  into.tools += from.tools;
  into.user += from.user;
  into.assistant += from.assistant;
  into.reasoning += from.reasoning;
  into.toolCalls += from.toolCalls;
  into.toolResults += from.toolResults;
  into.attachments += from.attachments;
  into.other += from.other;
  into.overhead += from.overhead;
  return into;
}

export function totalOf(b: Readonly<Breakdown>): number {
  return b.system + b.tools + b.user + b.assistant + b.reasoning + b.toolCalls + b.toolResults + b.attachments + b.other + b.overhead;
}

function attachmentTokens(part: ContentPart): number {
  if (part.type === 'image_url') return imageTokens(part.image_url.url);
  if (part.type === 'file') return Math.ceil((part.file.file_data ?? part.file.file_id ?? '').length / ATTACHMENT_CHARS_PER_TOKEN);
  if (part.type === 'input_audio') return Math.ceil(part.input_audio.data.length / ATTACHMENT_CHARS_PER_TOKEN);
  return 0;
}

function countContent(content: unknown, textCategory: Category, b: Breakdown, tok: Tokenizer): void {
  if (content == null) return;
  if (typeof content === 'string') {
    b[textCategory] += tok.count(content);
    return;
  }
  if (!Array.isArray(content)) return;
  for (const part of content as ContentPart[]) {
    if (isAttachmentPart(part)) b.attachments += attachmentTokens(part);
    else if (part.type === 'text') b[textCategory] += tok.count(part.text);
    else if (part.type === 'refusal') b[textCategory] += tok.count(part.refusal);
  }
}

const memo = new WeakMap<Tokenizer, WeakMap<object, Breakdown>>();

/**
 * Token breakdown of one message. Memoized per message object: strategies return unchanged messages as the same
 * object, so re-counting a transcript after a step only encodes what the step changed.
 */
export function countMessage(m: Message, tok: Tokenizer): Readonly<Breakdown> {
  let perTok = memo.get(tok);
  if (!perTok) memo.set(tok, (perTok = new WeakMap()));
  const hit = perTok.get(m);
  if (hit) return hit;
  const b = breakdownOf(m, tok);
  perTok.set(m, b);
  return b;
}

/**
 * The tokens of one message, from the memo when {@link countMessage} counted it, without adding it to the memo
 * otherwise: for a strategy weighing a candidate it may drop (a memo entry costs more than a short count).
 */
export function messageTokens(m: Message, tok: Tokenizer): number {
  return totalOf(memo.get(tok)?.get(m) ?? breakdownOf(m, tok));
}

function breakdownOf(m: Message, tok: Tokenizer): Breakdown {
  return addMessageTokens(emptyBreakdown(), m, tok);
}

/** Adds the tokens of one message into `b`, category by category. */
function addMessageTokens(b: Breakdown, m: Message, tok: Tokenizer): Breakdown {
  b.overhead += MESSAGE_OVERHEAD_TOKENS;
  if (!isKnownRole(m.role)) {
    b.other += tok.count(JSON.stringify(m));
  } else if (m.role === 'system' || m.role === 'developer') {
    countContent(m.content, 'system', b, tok);
  } else if (m.role === 'user') {
    countContent(m.content, 'user', b, tok);
  } else if (m.role === 'tool') {
    countContent(m.content, 'toolResults', b, tok);
  } else {
    countContent(m.content, 'assistant', b, tok);
    if (typeof m.refusal === 'string') b.assistant += tok.count(m.refusal);
    if (typeof m.reasoning_content === 'string') b.reasoning += tok.count(m.reasoning_content);
    if (Array.isArray(m.tool_calls)) {
      const calls = m.tool_calls as { function: { name: string; arguments: string } }[];
      // Indexed loops here and in countTranscript: a for-of's iterator was allocated on every call (sampled).
      for (let i = 0; i < calls.length; i++) b.toolCalls += tok.count(calls[i].function.name) + tok.count(calls[i].function.arguments);
    }
  }
  return b;
}

/**
 * Whether counting `m` afresh costs less than the memo: the heuristic counts a text by its length, so a message whose
 * content is one string (no attachment, whose size is read from its payload) is cheaper to count than to look up, and
 * a memo entry per message is a WeakMap entry the GC has to trace.
 */
function cheaperThanMemo(m: Message, tok: Tokenizer): boolean {
  return tok.engine === null && (typeof m.content === 'string' || m.content == null);
}

/** Adds the tokens of `m` into `b`, through the memo unless counting it afresh is cheaper (as {@link countTranscript} counts it). */
export function addMessage(b: Breakdown, m: Message, tok: Tokenizer): void {
  if (cheaperThanMemo(m, tok)) addMessageTokens(b, m, tok);
  else addBreakdown(b, countMessage(m, tok));
}

const toolsMemo = new WeakMap<Tokenizer, WeakMap<readonly ToolDef[], number>>();

/**
 * The tokens of a transcript's tool definitions, counted on their JSON. Memoized per array: a step that keeps the
 * tools keeps the same array, so a transcript's tools are serialized once, not again after every step that changed a
 * message.
 */
export function toolTokens(tools: readonly ToolDef[], tok: Tokenizer): number {
  let perTok = toolsMemo.get(tok);
  if (!perTok) toolsMemo.set(tok, (perTok = new WeakMap()));
  let n = perTok.get(tools);
  if (n === undefined) {
    n = tok.count(JSON.stringify(tools));
    perTok.set(tools, n);
  }
  return n;
}

export interface TranscriptTokens {
  total: number;
  byCategory: Breakdown;
}

/** Tokens of a whole transcript: every message plus the tool definitions (counted on their JSON). */
export function countTranscript(t: Transcript, tok: Tokenizer): TranscriptTokens {
  const b = emptyBreakdown();
  const messages = t.messages;
  for (let i = 0; i < messages.length; i++) addMessage(b, messages[i], tok);
  if (t.tools && t.tools.length > 0) b.tools = toolTokens(t.tools, tok);
  return { total: totalOf(b), byCategory: b };
}

/** Tokens of a prompt: its messages (each counted once through the memo) plus the tool definitions, counted like `countTranscript`. */
export function contextTokens(messages: readonly Message[], tools: readonly ToolDef[] | undefined, tok: Tokenizer): number {
  let n = tools && tools.length > 0 ? toolTokens(tools, tok) : 0;
  for (const m of messages) n += totalOf(countMessage(m, tok));
  return n;
}
