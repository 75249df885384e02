import { z } from 'zod';
import { TcompactError } from '../errors.js';
import { formatIssues } from '../model/parse.js';

/**
 * TEST-ONLY fault injection, read from the `TCOMPACT_TEST_FAULTS` environment variable (JSON). It exists so the
 * reliability tests can crash a real worker, exhaust its heap or fail a commit with ENOSPC on the real pool and the
 * real CLI. Normal runs never set it; it changes no output unless a fault fires.
 */
export const TEST_FAULTS_ENV = 'TCOMPACT_TEST_FAULTS';

const CrashSchema = z.strictObject({
  /** The input line (or, for item shards, the line of an item) that triggers the crash. */
  line: z.number().int().positive(),
  /** Only for this input file (as given on the command line). @default any file */
  file: z.string().optional(),
  /**
   * `exit`: process.exit in the worker; `throw`: an uncaught exception outside the task; `oom`: allocate until the
   * worker's heap limit kills it.
   */
  mode: z.enum(['exit', 'throw', 'oom']),
  /** Crash on attempts 1..N only, so a retry succeeds. @default every attempt */
  attempts: z.number().int().positive().optional(),
});

export const WorkerFaultsSchema = z.strictObject({
  crash: CrashSchema.optional(),
  /** Sleep this long at the start of every shard, so a kill test can land mid-run. @default 0 */
  shardDelayMs: z.number().int().min(0).optional(),
});
export type WorkerFaults = z.infer<typeof WorkerFaultsSchema>;

export const TestFaultsSchema = WorkerFaultsSchema.extend({
  /** Shard indexes whose commit fails with ENOSPC after writing part of the temporary file. */
  enospcOnCommit: z.array(z.number().int().min(0)).optional(),
});
export type TestFaults = z.infer<typeof TestFaultsSchema>;

export function readTestFaults(env: NodeJS.ProcessEnv = process.env): TestFaults | undefined {
  const text = env[TEST_FAULTS_ENV];
  if (text === undefined || text === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new TcompactError('E_CONFIG', `${TEST_FAULTS_ENV}: ${(err as Error).message}`);
  }
  const parsed = TestFaultsSchema.safeParse(value);
  if (!parsed.success) throw new TcompactError('E_CONFIG', `${TEST_FAULTS_ENV}: ${formatIssues(parsed.error.issues)}`);
  return parsed.data;
}

/**
 * Called by the worker before processing the item at (file, line). When a fault matches, returns a promise the worker
 * awaits and that never settles, because the worker dies first; otherwise undefined.
 */
export function injectedCrash(faults: WorkerFaults | undefined, file: string, line: number, attempt: number): Promise<never> | undefined {
  const crash = faults?.crash;
  if (!crash || crash.line !== line || (crash.file !== undefined && crash.file !== file)) return undefined;
  if (crash.attempts !== undefined && attempt > crash.attempts) return undefined;
  if (crash.mode === 'exit') process.exit(1);
  if (crash.mode === 'throw') {
    // Thrown outside the task's promise chain: an uncaught exception, which kills the worker thread.
    return new Promise<never>(() => {
      setImmediate(() => {
        throw new Error(`injected crash at ${file}:${line}`);
      });
    });
  }
  const hog: number[][] = [];
  for (;;) hog.push(new Array<number>(1 << 20).fill(line));
}

/** An ENOSPC error as the fs module raises it. */
export function enospcError(path: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`ENOSPC: no space left on device, write '${path}'`);
  err.code = 'ENOSPC';
  err.errno = -28;
  err.syscall = 'write';
  err.path = path;
  return err;
}
