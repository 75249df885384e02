import * as z from 'zod';
import { CHECKPOINT_PREFIX, type RefLookup, withOriginals } from '../model/compaction-marker.js';
import type { AssistantMessage, Message, UserMessage } from '../model/message.js';
import { lastUserRequestIndex } from '../model/validity.js';
import { contentText } from '../model/content.js';
import { refOf } from '../refs/ref-store.js';
import { countMessage, messageTokens, totalOf } from '../tokens/breakdown.js';
import { BoundaryFields } from './_config.js';
import { type CheckpointFacts, extractFacts } from './_checkpoint-facts.js';
import { SALIENCE_WEIGHTS, type SalienceWeights, salienceOf } from './_checkpoint-salience.js';
import { normalizePath } from '../model/tool-semantics.js';
import { unchanged, withMessages } from './_edit.js';
import { type ReplaceSpan, replaceableSpan, replacedMessages, replacementRole, withReplacement } from './_span.js';
import type { Strategy } from './types.js';

const CheckpointConfigSchema = z
  .strictObject({
    ...BoundaryFields,
    /**
     * Characters of checkpoint text per token of the span it replaces: the budget grows with the span, between
     * `minChars` and `maxChars`. @default 0.2 (a 100,000-token span gets 20,000 characters, about 5,000 tokens)
     */
    charsPerToken: z.number().positive().max(4).default(0.2),
    /** The smallest budget, in characters. @default 4000 */
    minChars: z.number().int().min(1000).default(4000),
    /**
     * The largest budget, in characters. Lists are cut with a "... N more" line when they do not fit; the header and
     * the last request always stay (the request clipped to a third of the budget). @default 48000
     */
    maxChars: z.number().int().min(1000).default(48_000),
    /**
     * A budget in tokens of the run's tokenizer instead of the characters above: the checkpoint message holds at most
     * this many tokens (eval holds it to the size of the source's own summary with it). @default unset
     */
    budgetTokens: z.number().int().min(100).optional(),
  })
  .refine((c) => c.minChars <= c.maxChars, { message: 'minChars must not exceed maxChars', path: ['minChars'] });
type CheckpointConfig = z.output<typeof CheckpointConfigSchema>;

/** The checkpoint's size budget, in characters, for a span of `spanTokens` tokens: linear, with a floor and a ceiling. */
export function checkpointBudget(spanTokens: number, config: Pick<CheckpointConfig, 'charsPerToken' | 'minChars' | 'maxChars'>): number {
  return Math.min(config.maxChars, Math.max(config.minChars, Math.round(spanTokens * config.charsPerToken)));
}

/** No list item is clipped shorter than this many characters (a list that still does not fit is cut short instead). */
const MIN_ITEM_CHARS = 160;
/** A user request longer than this is shortened to its beginning and end (the last one stays verbatim elsewhere). */
const REQUEST_CHARS = 1200;

/**
 * The span a checkpoint replaces: the middle between the kept head and the protected tail, the last user request left
 * in place (see `replaceableSpan`). Undefined when fewer than two messages would be replaced.
 */
function checkpointSpan(messages: readonly Message[], config: CheckpointConfig, lookup: RefLookup): ReplaceSpan | undefined {
  return replaceableSpan(messages, config, lookup);
}

/** `text` in at most `max` characters; a clipped text says how much is left out. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const keep = Math.max(0, max - 48);
  return `${text.slice(0, keep)} [... ${text.length - keep} more characters in the full record]`;
}

/** A long request shortened to its beginning and its end, which carry the ask and the last instruction. */
function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  const tail = Math.floor(max / 4);
  const head = max - tail;
  return `${text.slice(0, head)} [... ${text.length - head - tail} characters ...] ${text.slice(text.length - tail)}`;
}

export interface Section {
  title: string;
  items: string[];
  /** Each item's salience: a list that does not fit keeps its most salient items, in their own order. */
  salience?: readonly number[];
  /** Share of the budget this section may use; what a section leaves unused goes to the following ones. */
  weight: number;
}

/** Room kept at the end of a list for its "... N more" line. */
const MORE_LINE_CHARS = 48;

/**
 * Fits a list into `allowance` characters: items are clipped to the largest common length that lets all of them fit
 * (water-filling, so short items stay whole), but never below MIN_ITEM_CHARS. If they still do not fit, a list with
 * saliences keeps its most salient items (ties: the earlier), in their own order; a list without keeps its first ones.
 * Either ends with "... N more".
 */
function fitList(section: Section, allowance: number): string {
  const room = allowance - section.title.length - 1;
  const cost = (items: readonly string[], cap: number) => items.reduce((n, item) => n + Math.min(item.length, cap) + 1, 0);
  let items = section.items;
  const salience = section.salience;
  if (salience !== undefined && cost(items, MIN_ITEM_CHARS) > room) {
    const ranked = items.map((_, i) => i).sort((a, b) => salience[b] - salience[a] || a - b);
    let lo = 0;
    let hi = ranked.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (
        cost(
          ranked.slice(0, mid).map((i) => items[i]),
          MIN_ITEM_CHARS,
        ) +
          MORE_LINE_CHARS <=
        room
      )
        lo = mid;
      else hi = mid - 1;
    }
    const kept = ranked.slice(0, lo).sort((a, b) => a - b);
    items = kept.map((i) => section.items[i]);
  }
  const dropped = section.items.length - items.length;
  const longest = Math.max(0, ...items.map((i) => i.length));
  let cap = longest;
  if (cost(items, longest) + (dropped > 0 ? MORE_LINE_CHARS : 0) > room) {
    let lo = MIN_ITEM_CHARS;
    let hi = longest;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (cost(items, mid) + (dropped > 0 ? MORE_LINE_CHARS : 0) <= room) lo = mid;
      else hi = mid - 1;
    }
    cap = lo;
  }
  let text = `${section.title}\n`;
  for (let i = 0; i < items.length; i++) {
    const item = clip(items[i], cap);
    const reserve = i === items.length - 1 && dropped === 0 ? 0 : MORE_LINE_CHARS;
    if (text.length + item.length + 1 + reserve > allowance) {
      text += `... ${items.length - i + dropped} more (see the full record)\n`;
      return text;
    }
    text += `${item}\n`;
  }
  if (dropped > 0) text += `... ${dropped} more (see the full record)\n`;
  return text;
}

/** Shares the budget among the non-empty sections by weight, in the order given (most important first). */
export function fitSections(sections: readonly Section[], budget: number): Map<Section, string> {
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

export function commandLine(c: CheckpointFacts['commands'][number]): string {
  const runs = c.runs > 1 ? ` (${c.runs} runs)` : '';
  if (c.lastFailure !== undefined) return `- FAILED \`${c.command}\`${runs}: ${c.lastFailure}`;
  if (c.failedRuns > 0) return `- ok after ${c.failedRuns} failed run${c.failedRuns === 1 ? '' : 's'} \`${c.command}\``;
  return `- ok \`${c.command}\`${runs}`;
}

/** `path` relative to `root` when it lies under it, else as written. */
export function shortPath(path: string, root: string | undefined): string {
  if (root === undefined) return path;
  const r = normalizePath(root);
  const p = normalizePath(path);
  return r !== '' && r !== '/' && p.startsWith(`${r}/`) && p.length > r.length + 1 ? p.slice(r.length + 1) : path;
}

/** `read lines 1-80, 200-`, merged ranges in place of one entry per read; plain `read` for a whole-file read. */
export function fileActions(f: CheckpointFacts['files'][number]): string {
  const lines = f.lines.map((r) => (r.end === Infinity ? `${r.start}-` : r.start === r.end ? `${r.start}` : `${r.start}-${r.end}`));
  return f.actions.map((a) => (a === 'read' && lines.length > 0 ? `read lines ${lines.join(', ')}` : a)).join(', ');
}

/** What the checkpoint text depends on besides the facts. */
export interface RenderOptions {
  /** The project root (the transcript's working directory): file paths under it are written relative to it. */
  root?: string;
  /** How much each salience signal counts when a list must be cut. @default SALIENCE_WEIGHTS */
  weights?: SalienceWeights;
  /**
   * A later request follows the span (kept in place after it): the span's last request is no longer the current one,
   * so when it is long its shortened entry in the list stands for it, not a verbatim copy of up to a third of the
   * budget. @default false
   */
  superseded?: boolean;
}

/**
 * The checkpoint text: the trail an agent needs to go on. Every file touched, every distinct command (failed ones
 * marked), every error line (unresolved ones first), every user request (shortened where long) and the span's last
 * one verbatim, and the open tasks; in `budget` characters, lists shared by weight and, when they do not fit, cut to
 * their most salient items with a count of the rest.
 */
export function renderCheckpoint(facts: CheckpointFacts, replaced: number, ref: string | undefined, budget: number, options: RenderOptions = {}): string {
  const where = ref
    ? `The full record is kept in the tcompact side store under the ref above; \`tcompact restore\` puts it back.`
    : 'The full record was not kept (refs were off); it is in the original archive.';
  const root = options.root;
  const relative = root !== undefined && facts.files.some((f) => shortPath(f.path, root) !== f.path);
  const header = [
    `${CHECKPOINT_PREFIX} of ${replaced} message${replaced === 1 ? '' : 's'}]${ref ? ` (ref: ${ref})` : ''}`,
    `A deterministic checkpoint (no model): the facts below were extracted from ${replaced} earlier messages, which were removed from this context. ${where}`,
    ...(relative ? [`File paths are relative to ${root}.`] : []),
  ].join('\n');
  const salience = salienceOf(facts, options.weights ?? SALIENCE_WEIGHTS);
  const lastRequest = facts.requests.at(-1);
  const omitted = lastRequest === undefined || (options.superseded === true && lastRequest.length > REQUEST_CHARS);
  const last = omitted ? '' : `Last user request in that span, verbatim:\n${clip(lastRequest, Math.floor(budget / 3))}`;
  const requests: Section = {
    title: 'User requests, in order (long ones shortened):',
    items: facts.requests.map((r, i) => `${i + 1}. ${shorten(r, REQUEST_CHARS)}`),
    weight: 3,
  };
  const files: Section = {
    title: 'Files touched:',
    items: facts.files.map((f) => `- ${relative ? shortPath(f.path, root) : f.path} (${fileActions(f)})`),
    salience: salience.files,
    weight: 2,
  };
  const errorIndexes = facts.errors.map((_, i) => i);
  const unresolved = errorIndexes.filter((i) => !facts.errors[i].resolved);
  const resolved = errorIndexes.filter((i) => facts.errors[i].resolved);
  const errorLine = (i: number) => {
    const e = facts.errors[i];
    return `- ${e.what}: ${e.message}${e.at === undefined ? '' : ` (at ${e.at})`}`;
  };
  const errors: Section = {
    title: 'Unresolved errors (no later success on the same target):',
    items: unresolved.map(errorLine),
    salience: unresolved.map((i) => salience.errors[i]),
    weight: 2,
  };
  const todos: Section = { title: 'Open tasks:', items: facts.openTodos.map((t) => `- [${t.status}] ${t.content}`), weight: 1 };
  const commands: Section = {
    title: 'Commands run (distinct; outcome of the last run):',
    items: facts.commands.map(commandLine),
    salience: salience.commands,
    weight: 4,
  };
  const fixed: Section = {
    title: 'Errors resolved later:',
    items: resolved.map(errorLine),
    salience: resolved.map((i) => salience.errors[i]),
    weight: 1,
  };
  const fitted = fitSections([files, todos, errors, requests, commands, fixed], budget - header.length - last.length - 4);
  const body = [requests, files, commands, errors, fixed, todos].map((s) => fitted.get(s)?.trimEnd()).filter((s) => s !== undefined);
  return [header, ...body, ...(last === '' ? [] : [last])].join('\n\n').slice(0, budget);
}

/** Tries of {@link withinTokens} before it settles for the smallest budget it tried. */
const TOKEN_FIT_TRIES = 8;

/**
 * The message rendered at the largest character budget found whose tokens stay within `budgetTokens`: it starts at 8
 * characters per token (above any text's ratio) and scales the budget down by the overshoot until it fits.
 */
function withinTokens<M>(render: (budget: number) => M, budgetTokens: number, tokensOf: (m: M) => number): M {
  let budget = budgetTokens * 8;
  let message = render(budget);
  for (let i = 0; i < TOKEN_FIT_TRIES; i++) {
    const tokens = tokensOf(message);
    if (tokens <= budgetTokens) return message;
    budget = Math.max(1, Math.floor((budget * budgetTokens * 0.98) / tokens));
    message = render(budget);
  }
  return message;
}

/**
 * `checkpoint`: a deterministic, no-LLM memory checkpoint. Replaces the middle of the transcript with one message
 * listing facts extracted from it, in a budget that grows with the span. Between the head and a later request the
 * message is a `user` one (every chat API accepts it there, while a system message mid-conversation is refused by
 * some); when the span reaches into the current turn, the last request stays in place and the checkpoint follows it
 * as an `assistant` message, so that request stays the last. When the checkpoint would not be smaller than the span,
 * the transcript is left unchanged.
 */
export const checkpoint: Strategy<typeof CheckpointConfigSchema> = {
  name: 'checkpoint',
  summary: 'replace the middle with one deterministic checkpoint message: requests, files, commands, errors, open tasks',
  config: CheckpointConfigSchema,
  apply(transcript, config, ctx) {
    const messages = transcript.messages;
    const lookup: RefLookup = (ref) => ctx.refs?.get(ref);
    const span = checkpointSpan(messages, config, lookup);
    if (!span) return unchanged(transcript, { checkpoints: 0, messagesReplaced: 0 });
    const replaced = replacedMessages(messages, span);
    const expanded = withOriginals(replaced, lookup);
    // Counted without adding them to the memo: the span leaves the transcript when the checkpoint is taken.
    let spanTokens = 0;
    for (const m of replaced) spanTokens += messageTokens(m, ctx.tokenizer);
    let expandedTokens = 0;
    for (const m of expanded) expandedTokens += messageTokens(m, ctx.tokenizer);
    // The replaced messages' JSON names them in the checkpoint and is stored: only with a side store.
    const record = ctx.refs ? JSON.stringify(replaced) : undefined;
    const ref = record === undefined ? undefined : refOf(record);
    const root = typeof transcript.metadata?.cwd === 'string' ? transcript.metadata.cwd : undefined;
    const facts = extractFacts(expanded);
    const current = lastUserRequestIndex(messages);
    const role = replacementRole(span, current);
    // The request after the span is the one the agent works on; an empty one (eval's next turn) supersedes nothing.
    const superseded = current >= span.from && contentText((messages[current] as UserMessage).content).trim() !== '';
    const options: RenderOptions = { ...(root === undefined ? {} : { root }), ...(superseded ? { superseded } : {}) };
    const messageOf = (budget: number): UserMessage | AssistantMessage => {
      const content = renderCheckpoint(facts, expanded.length, ref, budget, options);
      return role === 'assistant' ? { role: 'assistant', content } : { role: 'user', content };
    };
    const message =
      config.budgetTokens === undefined
        ? messageOf(checkpointBudget(expandedTokens, config))
        : withinTokens(messageOf, config.budgetTokens, (m) => totalOf(countMessage(m, ctx.tokenizer)));
    if (totalOf(countMessage(message, ctx.tokenizer)) >= spanTokens) return unchanged(transcript, { checkpoints: 0, messagesReplaced: 0 });
    if (record !== undefined) ctx.refs?.putJson(record, ref);
    return {
      transcript: withMessages(transcript, withReplacement(messages, span, message)),
      messagesChanged: 0,
      messagesRemoved: replaced.length,
      details: { checkpoints: 1, messagesReplaced: replaced.length },
    };
  },
};
