/** Documented process exit codes. */
export const EXIT = {
  /** Everything was processed. */
  OK: 0,
  /** The run finished but some input lines failed (see errors.jsonl). */
  INPUT_ERRORS: 1,
  /** Bad command line or configuration, or the queue (Redis) of a distributed run unreachable or lost. */
  USAGE: 2,
  /** `--resume` was refused: the input or configuration changed since the journal was written. */
  RESUME_REFUSED: 3,
  /**
   * A file the command needs could not be read or written (E_IO: disk full, quota, read-only file system, no permission,
   * I/O error); nothing final was written and `run --resume` continues once the cause is fixed. 74 is EX_IOERR of
   * sysexits.h: neither "some input failed" (1) nor a bug (70), so a script can tell a full disk from both.
   */
  IO_ERROR: 74,
  /** Interrupted (SIGINT/SIGTERM) after flushing the journal; `--resume` continues. */
  INTERRUPTED: 130,
  /** An unexpected internal error (a bug): the stack is printed. */
  INTERNAL: 70,
} as const;
