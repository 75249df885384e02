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

function lines(text: string): string[] {
  return text
    .replace(/<\/?tool_use_error>/g, '\n')
    .split('\n')
    .map((line) => collapseWhitespace(line))
    .filter((line) => line !== '');
}

/** Whether a tool result reports a failure: its `is_error` flag when the producer sets one, else its first line. */
export function isFailedResult(message: ToolMessage): boolean {
  if (typeof message.is_error === 'boolean') return message.is_error;
  const first = lines(contentText(message.content))[0];
  return first !== undefined && FAILURE_LINE.test(first);
}

/**
 * The line that identifies an error result: its first non-empty line, skipping a bare `Exit code N` line and the
 * `<tool_use_error>` tags, whitespace collapsed and cut to {@link MAX_ERROR_LINE_CHARS} characters. Undefined for an
 * empty result.
 */
export function errorLine(message: ToolMessage): string | undefined {
  const all = lines(contentText(message.content));
  const line = all.find((l) => !EXIT_CODE_LINE.test(l)) ?? all[0];
  return line === undefined ? undefined : line.slice(0, MAX_ERROR_LINE_CHARS).trimEnd();
}
