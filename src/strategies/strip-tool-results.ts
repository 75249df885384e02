import * as z from 'zod';
import { contentText } from '../model/content.js';
import { type Message, type ToolMessage, isAssistant, isTool } from '../model/message.js';
import { BoundaryFields, ToolHintsField } from './_config.js';
import { fewerTokens, removeToolCalls, withMessages } from './_edit.js';
import { STRIP_PREFIX, isCompactedResult, refSuffix } from './_placeholders.js';
import { indexToolCalls, toolNameOf } from './_tool-index.js';
import { protectedRange } from './boundaries.js';
import type { Strategy } from './types.js';

const StripToolResultsConfigSchema = z.strictObject({
  ...BoundaryFields,
  ...ToolHintsField,
  /** The first line kept in the summary is cut to this many characters. @default 200 */
  lineChars: z.number().int().min(1).default(200),
});

/** The first line of `text` that is not blank, trimmed and cut to `max` code points (with `…` when cut). */
export function firstLine(text: string, max: number): string {
  // A stub is made for every stripped result, whose first line can be megabytes long: only a window of it is read.
  // `\S` is the complement of what `trim` removes, so the first non-blank line starts at the first match.
  const start = text.search(NON_BLANK);
  if (start === -1) return '';
  // 2 * max + 2 UTF-16 units hold more than `max` code points, so a window without a line end is cut within it.
  const window = text.slice(start, start + 2 * max + 2);
  const end = window.indexOf('\n');
  if (end !== -1) return cutToCodePoints(window.slice(0, end).trimEnd(), max);
  if (start + window.length === text.length) return cutToCodePoints(window.trimEnd(), max);
  const cut = cutToCodePoints(window, max);
  // The line goes on past the window: it is cut unless all that follows the cut, to the line's end, is blank.
  if (NON_BLANK.test(window.slice(cut.length - 1))) return cut;
  return slowFirstLine(text, start, max);
}

const NON_BLANK = /\S/;

/** The definition, for the rare line that is blank from the cut on for longer than the window. */
function slowFirstLine(text: string, start: number, max: number): string {
  let end = text.indexOf('\n', start);
  if (end === -1) end = text.length;
  return cutToCodePoints(text.slice(start, end).trim(), max);
}

/** `line` when it has at most `max` code points, else its first `max` and `…`; a lone surrogate is one code point. */
function cutToCodePoints(line: string, max: number): string {
  if (line.length <= max) return line;
  // Without a surrogate among the first `max` units, each of them is one code point and at least one more follows.
  if (!SURROGATE.test(line.slice(0, max))) return `${line.slice(0, max)}…`;
  let points = 0;
  for (let i = 0; i < line.length; i++) {
    if (points === max) return `${line.slice(0, i)}…`;
    const c = line.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < line.length) {
      const d = line.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    points++;
  }
  return line;
}

const SURROGATE = /[\ud800-\udfff]/;

/** `[compacted] {tool}: {success|error}: {first line}` */
function strippedText(tool: string, result: ToolMessage, lineChars: number, ref: string | undefined): string {
  const status = result.is_error === true ? 'error' : 'success';
  const line = firstLine(contentText(result.content), lineChars);
  return `${STRIP_PREFIX}${tool}: ${status}${line === '' ? '' : `: ${line}`}${refSuffix(ref)}`;
}

/**
 * Replaces tool results outside the kept turns with a one-line summary, per tool hint `response`: `strip` (the default)
 * summarizes, `keep` leaves the result, `remove` drops the call and its result together.
 */
export const stripToolResults: Strategy<typeof StripToolResultsConfigSchema> = {
  name: 'strip-tool-results',
  summary: 'replace tool results with "[compacted] {tool}: {success|error}: {first line}"; per-tool keep/strip/remove',
  config: StripToolResultsConfigSchema,
  apply(transcript, config, ctx) {
    const messages = transcript.messages;
    const { headEnd, tailStart } = protectedRange(messages, config);
    const calls = indexToolCalls(messages);
    const inRange = (i: number) => i >= headEnd && i < tailStart;
    let out: Message[] | undefined;
    let stripped = 0;
    const toRemove = new Set<string>();
    for (let i = headEnd; i < tailStart; i++) {
      const m = messages[i];
      if (!isTool(m)) continue;
      const tool = toolNameOf(calls, m);
      const response = config.toolHints[tool]?.response ?? 'strip';
      if (response === 'keep') continue;
      if (response === 'remove') {
        const call = calls.get(m.tool_call_id);
        if (call && inRange(call.index)) toRemove.add(m.tool_call_id);
        continue;
      }
      const text = contentText(m.content);
      if (isCompactedResult(text)) continue;
      // The placeholder names the original's ref; it is stored only if the placeholder is taken.
      const original = ctx.refs?.contentRef(m);
      const ref = original?.ref;
      const next: ToolMessage = { ...m, content: strippedText(tool, m, config.lineChars, ref) };
      if (!fewerTokens(m, next, ctx.tokenizer)) continue;
      original?.keep();
      out ??= messages.slice();
      out[i] = next;
      stripped++;
    }
    // A call is removed only when all of its results are in the editable range too.
    messages.forEach((m, i) => {
      if (isTool(m) && !inRange(i)) toRemove.delete(m.tool_call_id);
    });
    // Removed calls and results have no placeholder to point at, but still go to the side store: nothing is lost.
    for (const m of messages) {
      if (isTool(m) && toRemove.has(m.tool_call_id)) ctx.refs?.putJson(JSON.stringify(m));
      if (isAssistant(m)) for (const c of m.tool_calls ?? []) if (toRemove.has(c.id)) ctx.refs?.putJson(JSON.stringify(c));
    }
    const removal = removeToolCalls(out ?? messages, toRemove);
    const changed = stripped + removal.messagesChanged + removal.messagesRemoved > 0;
    return {
      transcript: changed ? withMessages(transcript, removal.messages) : transcript,
      messagesChanged: stripped + removal.messagesChanged,
      messagesRemoved: removal.messagesRemoved,
      details: { resultsStripped: stripped, callsRemoved: removal.callsRemoved },
    };
  },
};
