import { REF_LENGTH } from '../model/ref.js';

/**
 * The texts strategies put in place of content, in one place so that each strategy recognises what it (or another one)
 * already compacted and stays idempotent.
 */
export const MASK_PREFIX = '[Previous: used ';
export const STRIP_PREFIX = '[compacted] ';
export const ATTACHMENT_PREFIX = '[attachment: ';

/**
 * A ref's shape without its value, for sizing a placeholder before its content is hashed: every ref is
 * {@link REF_LENGTH} hex characters, one UTF-8 byte each.
 */
export const REF_SHAPE = '0'.repeat(REF_LENGTH);

/** ` (ref: 0123abcd...)`, or nothing when refs are off. */
export function refSuffix(ref: string | undefined): string {
  return ref === undefined ? '' : ` (ref: ${ref})`;
}

/**
 * `[Previous: used {tool}]` plus the reference; for a failed result, its error line after it
 * (`[Previous: used Bash] failed: npm ERR! missing script: lint`), so an unresolved error survives masking.
 */
export function maskText(tool: string, ref: string | undefined, errorLine?: string): string {
  return `${MASK_PREFIX}${tool}]${errorLine === undefined ? '' : ` failed: ${errorLine}`}${refSuffix(ref)}`;
}

/** A masked result that kept its error line: it still says the call failed, as the result it replaced did. */
export function isMaskedFailure(text: string): boolean {
  if (!text.startsWith(MASK_PREFIX)) return false;
  const close = text.indexOf(']', MASK_PREFIX.length);
  return close >= 0 && text.startsWith(' failed: ', close + 1);
}

/** A tool result text that a strategy already replaced with a placeholder. */
export function isCompactedResult(text: string): boolean {
  return text.startsWith(MASK_PREFIX) || text.startsWith(STRIP_PREFIX);
}
