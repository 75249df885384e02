import { constants as osConstants } from 'node:os';
import { getSystemErrorMap } from 'node:util';

/**
 * Stable error codes. They appear in errors.jsonl, in CLI messages and in worker results, and never change meaning.
 */
export const ERROR_CODES = {
  E_JSON: 'a line is not valid JSON',
  E_SCHEMA: 'a record does not match the expected schema',
  E_FORMAT: 'the input format is unknown or the record does not fit the detected format',
  E_TRUNCATED: 'the last line of a file is incomplete',
  E_LINE_TOO_LONG: 'a line exceeds --max-line-bytes and was not parsed',
  E_UTF8: 'a line is not valid UTF-8',
  E_WORKER: 'the worker processing this shard crashed on every attempt',
  E_IO: 'a file could not be read or written',
  E_SQLITE: 'a SQLite store could not be read as it is: a write in progress (hot journal), a file cut mid-page, or not a SQLite database',
  E_QUEUE: 'the job queue (Redis) of a distributed run could not be reached or was lost',
  E_CONFIG: 'the configuration is invalid',
  E_USAGE: 'the command line is invalid',
  E_RESUME: 'a resume was refused because the input or the configuration changed',
  E_LLM: 'the language model request failed',
  E_STRATEGY: 'a strategy failed on this transcript',
  E_NOT_PREPARED: 'a strategy that loads its rules when prepared was applied before its preparation was awaited',
  E_REF: 'restore needs a reference that is missing from the side store, or whose content does not match it, or the side store is of a newer version',
  E_INTERNAL: 'an unexpected internal error',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** A failure as plain data: survives structured clone across the worker boundary, unlike Error subclasses. */
export interface ErrorInfo {
  code: ErrorCode;
  message: string;
}

/** One line of errors.jsonl: where the bad input was and why. */
export interface ErrorRecord extends ErrorInfo {
  file: string;
  /** 1-based line number in `file` (for whole-file formats, 1). */
  line: number;
  /** Byte offset of the start of that line in `file`. */
  byteOffset: number;
}

const MARKER = Symbol.for('tcompact.error');

/** An expected, reportable error with a stable code. Unexpected errors stay plain Errors and print their stack. */
export class TcompactError extends Error {
  readonly [MARKER] = true;
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TcompactError';
    this.code = code;
  }

  /** True for a TcompactError from any copy of this module (instanceof fails across realms and bundles). */
  static isInstance(value: unknown): value is TcompactError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }

  toInfo(): ErrorInfo {
    return { code: this.code, message: this.message };
  }
}

/** An error a failed system call raised (node:fs and the like): its errno name and the call. */
export interface SystemError extends Error {
  code: string;
  syscall: string;
  errno?: number;
  path?: string;
}

export function isSystemError(err: unknown): err is SystemError {
  const e = err as Partial<SystemError> | null | undefined;
  return typeof e?.code === 'string' && typeof e.syscall === 'string';
}

/** Reasons libuv has no name for: Node reports these errnos as `UNKNOWN: unknown error`. */
const UNNAMED_REASONS: Record<string, string> = { EDQUOT: 'disk quota exceeded' };

/** The system's reason and its errno name, as `no space left on device (ENOSPC)`. */
export function systemReason(err: SystemError): string {
  const errno = typeof err.errno === 'number' ? -Math.abs(err.errno) : undefined;
  const named = err.code !== 'UNKNOWN' ? err.code : Object.entries(osConstants.errno).find(([, n]) => -n === errno)?.[0];
  const name = named ?? err.code;
  const reason = UNNAMED_REASONS[name] ?? (errno === undefined ? undefined : getSystemErrorMap().get(errno)?.[1]) ?? /^\w+: ([^,]+)/.exec(err.message)?.[1];
  return reason === undefined || reason === name ? name : `${reason} (${name})`;
}

/**
 * A failed system call while writing `path` as E_IO: `cannot write PATH: no space left on device (ENOSPC)`. The write
 * boundary (atomic files, the journal) passes the path the user knows, the final one: a failed write() carries none, and
 * a temporary name would mean nothing to them. Any other error is returned as it is (a TcompactError keeps its own
 * message, a bug stays a bug).
 */
export function writeError(err: unknown, path: string): unknown {
  if (!isSystemError(err)) return err;
  return new TcompactError('E_IO', `cannot write ${path}: ${systemReason(err)}`, { cause: err });
}

/**
 * What went wrong, as data that crosses a worker boundary or reaches the CLI: a TcompactError keeps its code, a failed
 * system call is E_IO (`cannot open PATH: permission denied (EACCES)`), anything else E_INTERNAL with its stack.
 */
export function errorInfoOf(err: unknown): ErrorInfo {
  if (TcompactError.isInstance(err)) return err.toInfo();
  if (isSystemError(err)) return { code: 'E_IO', message: `cannot ${err.syscall}${err.path === undefined ? '' : ` ${err.path}`}: ${systemReason(err)}` };
  const e = err as Error | undefined;
  return { code: 'E_INTERNAL', message: e?.stack ?? String(err) };
}

/** Outcome of an operation that can fail in an expected way: the value, or what went wrong (ErrorInfo by default). */
export type Outcome<T, E = ErrorInfo> = { ok: true; value: T } | { ok: false; error: E };

export const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });
export const fail = <T = never>(code: ErrorCode, message: string): Outcome<T> => ({
  ok: false,
  error: { code, message },
});
