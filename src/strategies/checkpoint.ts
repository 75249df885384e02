import { z } from 'zod';
import { CHECKPOINT_PREFIX, type RefLookup, compactionMessage, originalsOf, withOriginals } from '../model/compaction-marker.js';
import { type AssistantMessage, type Message, type UserMessage, isTool } from '../model/message.js';
import { lastUserRequestIndex } from '../model/validity.js';
import { refOf } from '../refs/ref-store.js';
import { countMessage, totalOf } from '../tokens/breakdown.js';
import { BoundaryFields } from './_config.js';
import { type CheckpointFacts, extractFacts } from './_checkpoint-facts.js';
import { unchanged, withMessages } from './_edit.js';
import { protectedRange } from './boundaries.js';
import type { Strategy } from './types.js';

export const CheckpointConfigSchema = z.strictObject({
  ...BoundaryFields,
  /**
   * Longest checkpoint text, in characters. Lists are cut with a "... N more" line when they do not fit; the header and
   * the last request always stay (the request clipped to a third of this).
   * @default 6000
   */
  maxChars: z.number().int().min(1000).default(6000),
});
export type CheckpointConfig = z.output<typeof CheckpointConfigSchema>;

/** No list item is clipped shorter than this many characters (a list that still does not fit is cut short instead). */
const MIN_ITEM_CHARS = 160;

/**
 * [from, to): the middle between the kept head and tail, never starting inside a tool block, never holding the last
 * user request, and starting after any earlier checkpoint or summary whose originals cannot be looked up (its facts
 * would be lost). Undefined when fewer than two messages remain: one message is not worth a checkpoint, and this keeps
 * the strategy idempotent (its own checkpoint is alone in the middle afterwards).
 */
export function checkpointSpan(messages: readonly Message[], config: CheckpointConfig, lookup: RefLookup): { from: number; to: number } | undefined {
  const { headEnd, tailStart } = protectedRange(messages, config);
  let from = headEnd;
  let to = tailStart;
  const lastUser = lastUserRequestIndex(messages);
  if (lastUser >= from && lastUser < to) to = lastUser;
  for (let i = from; i < to; i++) {
    const marker = compactionMessage(messages[i]);
    if (marker && (marker.ref === undefined || originalsOf(marker.ref, lookup) === undefined)) from = i + 1;
  }
  while (from < to && isTool(messages[from])) from++;
  return to - from >= 2 ? { from, to } : undefined;
}

/** `text` in at most `max` characters; a clipped text says how much is left out. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const keep = Math.max(0, max - 48);
  return `${text.slice(0, keep)} [... ${text.length - keep} more characters in the full record]`;
}

interface Section {
  title: string;
  items: string[];
  /** Share of the budget this section may use; what a section leaves unused goes to the following ones. */
  weight: number;
}

/** Room kept at the end of a list for its "... N more" line. */
const MORE_LINE_CHARS = 48;

/**
 * Fits a list into `allowance` characters: items are clipped to the largest common length that lets all of them fit
 * (water-filling, so short items stay whole), but never below MIN_ITEM_CHARS; if they still do not fit, the list ends
 * with "... N more".
 */
function fitList(section: Section, allowance: number): string {
  const room = allowance - section.title.length - 1;
  const cost = (cap: number) => section.items.reduce((n, item) => n + Math.min(item.length, cap) + 1, 0);
  const longest = Math.max(...section.items.map((i) => i.length));
  let cap = longest;
  if (cost(longest) > room) {
    let lo = MIN_ITEM_CHARS;
    let hi = longest;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (cost(mid) <= room) lo = mid;
      else hi = mid - 1;
    }
    cap = lo;
  }
  let text = `${section.title}\n`;
  const items = section.items;
  for (let i = 0; i < items.length; i++) {
    const item = clip(items[i], cap);
    const reserve = i === items.length - 1 ? 0 : MORE_LINE_CHARS;
    if (text.length + item.length + 1 + reserve > allowance) {
      text += `... ${items.length - i} more (see the full record)\n`;
      break;
    }
    text += `${item}\n`;
  }
  return text;
}

/** Shares the budget among the non-empty sections by weight, in the order given (most important first). */
function fitSections(sections: readonly Section[], budget: number): Map<Section, string> {
  const out = new Map<Section, string>();
  const present = sections.filter((s) => s.items.length > 0);
  let pool = budget;
  let weights = present.reduce((n, s) => n + s.weight, 0);
  for (const section of present) {
    const allowance = Math.floor((pool * section.weight) / weights);
    weights -= section.weight;
    if (allowance < section.title.length + MORE_LINE_CHARS) continue;
    const text = fitList(section, allowance);
    out.set(section, text);
    pool -= text.length + 1;
  }
  return out;
}

function renderCheckpoint(facts: CheckpointFacts, replaced: number, ref: string | undefined, lastRequest: string | undefined, maxChars: number): string {
  const where = ref
    ? `The full record is kept in the tcompact side store under the ref above; \`tcompact restore\` puts it back.`
    : 'The full record was not kept (refs were off); it is in the original archive.';
  const header = [
    `${CHECKPOINT_PREFIX} of ${replaced} message${replaced === 1 ? '' : 's'}]${ref ? ` (ref: ${ref})` : ''}`,
    `A deterministic checkpoint (no model): the facts below were extracted from ${replaced} earlier messages, which were removed from this context. ${where}`,
  ].join('\n');
  const last = lastRequest === undefined ? '' : `Last user request in that span, verbatim:\n${clip(lastRequest, Math.floor(maxChars / 4))}`;
  const paths = (list: string[]) => list.map((p) => `- ${p}`);
  const requests: Section = { title: 'User requests, verbatim and in order:', items: facts.requests.map((r, i) => `${i + 1}. ${r}`), weight: 4 };
  const errors: Section = {
    title: 'Errors (and whether a later step resolved them):',
    items: [...facts.errors]
      .sort((a, b) => Number(a.resolved) - Number(b.resolved))
      .map((e) => `- ${e.what}: ${e.message} -> ${e.resolved ? 'resolved later' : 'unresolved'}`),
    weight: 2,
  };
  const todos: Section = { title: 'Open todo items:', items: facts.openTodos.map((t) => `- [${t.status}] ${t.content}`), weight: 1 };
  const modified: Section = { title: 'Files modified:', items: paths(facts.filesModified), weight: 1 };
  const created: Section = { title: 'Files created:', items: paths(facts.filesCreated), weight: 1 };
  const commands: Section = {
    title: 'Commands run (outcome of the last run; failed runs of commands that later succeeded are not listed as errors):',
    items: facts.commands.map((c) => {
      if (c.lastFailure !== undefined) return `- \`${c.command}\` -> failed: ${c.lastFailure}${c.runs > 1 ? ` (${c.runs} runs)` : ''}`;
      if (c.failedRuns > 0) return `- \`${c.command}\` -> ok after ${c.failedRuns} failed run${c.failedRuns === 1 ? '' : 's'}`;
      return `- \`${c.command}\` -> ok${c.runs > 1 ? ` (${c.runs} runs)` : ''}`;
    }),
    weight: 2,
  };
  const read: Section = { title: 'Files read:', items: paths(facts.filesRead), weight: 1 };
  const fitted = fitSections([requests, errors, todos, modified, created, commands, read], maxChars - header.length - last.length - 4);
  const body = [requests, read, created, modified, commands, errors, todos].map((s) => fitted.get(s)?.trimEnd()).filter((s) => s !== undefined);
  return [header, ...body, ...(last === '' ? [] : [last])].join('\n\n').slice(0, maxChars);
}

/**
 * `checkpoint`: a deterministic, no-LLM memory checkpoint. Replaces the middle of the transcript with one message
 * listing facts extracted from it. The role is `user` because the message sits between the kept head (which ends with
 * the first request) and the kept tail (which starts with a request): every chat API accepts a user message there,
 * while a system message in mid-conversation is refused by some. Only when the span follows the last user request
 * (keepLast 0) is it an `assistant` message, so that the last request stays the last. When the checkpoint would not be
 * smaller than the span, the transcript is left unchanged.
 */
export const checkpoint: Strategy<typeof CheckpointConfigSchema> = {
  name: 'checkpoint',
  summary: 'replace the middle with one deterministic checkpoint message: requests, files, commands, errors, open todos',
  config: CheckpointConfigSchema,
  apply(transcript, config, ctx) {
    const messages = transcript.messages;
    const lookup: RefLookup = (ref) => ctx.refs?.get(ref);
    const span = checkpointSpan(messages, config, lookup);
    if (!span) return unchanged(transcript, { checkpoints: 0, messagesReplaced: 0 });
    const replaced = messages.slice(span.from, span.to);
    const expanded = withOriginals(replaced, lookup);
    const facts = extractFacts(expanded);
    const record = JSON.stringify(replaced);
    const ref = ctx.refs ? refOf(record) : undefined;
    const text = renderCheckpoint(facts, expanded.length, ref, facts.requests.at(-1), config.maxChars);
    // After the last user request (keepLast 0), a user message would become the latest request: speak as the assistant.
    const afterLastRequest = lastUserRequestIndex(messages) < span.from;
    const message: UserMessage | AssistantMessage = afterLastRequest ? { role: 'assistant', content: text } : { role: 'user', content: text };
    let spanTokens = 0;
    for (const m of replaced) spanTokens += totalOf(countMessage(m, ctx.tokenizer));
    if (totalOf(countMessage(message, ctx.tokenizer)) >= spanTokens) return unchanged(transcript, { checkpoints: 0, messagesReplaced: 0 });
    ctx.refs?.put(record);
    return {
      transcript: withMessages(transcript, [...messages.slice(0, span.from), message, ...messages.slice(span.to)]),
      messagesChanged: 0,
      messagesRemoved: replaced.length,
      details: { checkpoints: 1, messagesReplaced: replaced.length },
    };
  },
};
