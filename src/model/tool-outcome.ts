import { contentText } from './content.js';
import type { ToolMessage } from './message.js';

/** Longest text kept of an error line: a long first line is matched on this prefix. */
export const MAX_ERROR_LINE_CHARS = 200;

/** Every run of whitespace (spaces, tabs, newlines) becomes one space; leading and trailing whitespace goes. */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * A first line that reads as a failure, for results whose producer sets no `is_error` flag (tau-bench, SWE-agent):
 * `Error...`, `fatal:`, `Exception...`, a Python traceback, a non-zero `Exit code N`, `command not found`,
 * `No such file or directory`.
 */
const FAILURE_LINE = /^(?:error\b|fatal:|exception\b|traceback \(most recent call last\)|exit code [1-9]\d*\b)|command not found|no such file or directory/i;

/** Claude Code's first line of a failed Bash result; it says nothing about the error itself. */
const EXIT_CODE_LINE = /^exit code -?\d+$/i;

/**
 * The non-empty lines of a result, whitespace collapsed, `<tool_use_error>` tags read as line breaks; lazily, since
 * callers want the first one or two and a tool result can be megabytes (splitting it all was a tenth of a worker's time).
 */
function* lines(text: string): Generator<string> {
  for (let from = 0; from <= text.length;) {
    let nl = text.indexOf('\n', from);
    if (nl === -1) nl = text.length;
    for (const piece of text.slice(from, nl).split(TOOL_USE_ERROR_TAG)) {
      const line = collapseWhitespace(piece);
      if (line !== '') yield line;
    }
    from = nl + 1;
  }
}

const TOOL_USE_ERROR_TAG = /<\/?tool_use_error>/;

/**
 * {@link FAILURE_LINE} for a line whose whitespace is not collapsed yet: each space may be any run of whitespace, and
 * the line may start with some. It matches a raw line exactly when FAILURE_LINE matches the line collapsed.
 */
const FAILURE_LINE_RAW =
  /^\s*(?:error\b|fatal:|exception\b|traceback\s+\(most\s+recent\s+call\s+last\)|exit\s+code\s+[1-9]\d*\b)|command\s+not\s+found|no\s+such\s+file\s+or\s+directory/i;

/**
 * Whether the first of {@link lines} reads as a failure. A raw line with no tag in it is tested as it is, with no
 * collapsed copy of it: this runs on nearly every result of every transcript.
 */
function firstLineFails(text: string): boolean {
  for (let from = 0; from <= text.length;) {
    let nl = text.indexOf('\n', from);
    if (nl === -1) nl = text.length;
    const line = text.slice(from, nl);
    if (line.includes('<')) {
      const first = lines(text.slice(from)).next();
      return first.done !== true && FAILURE_LINE.test(first.value);
    }
    if (NOT_BLANK.test(line)) return FAILURE_LINE_RAW.test(line);
    from = nl + 1;
  }
  return false;
}

const NOT_BLANK = /\S/;

/** What {@link isFailedResult} read a result's first line from, and what it found. */
interface FailureRead {
  content: ToolMessage['content'];
  failed: boolean;
}

/**
 * First-line reads by result object: dedup-tools, mask-observations and checkpoint each ask about the same unchanged
 * results, and reading the first line of a large one (its text joined, whitespace collapsed) is what costs. An entry
 * holds for as long as the result's `content` is the same value it was read from.
 */
const failureReads = new WeakMap<ToolMessage, FailureRead>();

/** Whether a tool result reports a failure: its `is_error` flag when the producer sets one, else its first line. */
export function isFailedResult(message: ToolMessage): boolean {
  if (typeof message.is_error === 'boolean') return message.is_error;
  const content = message.content;
  const known = failureReads.get(message);
  if (known !== undefined && known.content === content) return known.failed;
  const failed = firstLineFails(contentText(content));
  failureReads.set(message, { content, failed });
  return failed;
}

/**
 * The line that identifies an error result: its first non-empty line, skipping a bare `Exit code N` line and the
 * `<tool_use_error>` tags, whitespace collapsed and cut to {@link MAX_ERROR_LINE_CHARS} characters. Undefined for an
 * empty result.
 */
export function errorLine(message: ToolMessage): string | undefined {
  let first: string | undefined;
  for (const l of lines(contentText(message.content))) {
    first ??= l;
    if (!EXIT_CODE_LINE.test(l)) return l.slice(0, MAX_ERROR_LINE_CHARS).trimEnd();
  }
  return first?.slice(0, MAX_ERROR_LINE_CHARS).trimEnd();
}
