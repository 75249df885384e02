import { callOfUsage } from '../model/recorded.js';
import { versionIn } from '../model/client-version.js';
import { isObject } from './_items.js';

/** The client versions that cleared old tool results with no record of it (anthropics/claude-code#17407). */
const UNLOGGED_FROM = '2.1.2';
const UNLOGGED_TO = '2.1.3';
/** The least fall of the recorded prompt read as a clearing: one cleared result is thousands of tokens, a retry's noise hundreds. */
const LEAST_DROP = 10_000;

/**
 * Claude Code 2.1.2 and 2.1.3 micro-compacted without logging it: before a call, it replaced old tool results with
 * `[Old tool result content cleared]` in what it sent, while the log keeps them whole. Only the record shows it: the
 * call's recorded prompt falls by thousands of tokens from the previous call's on the same branch, with no compaction
 * between, and its cache read falls below the previous call's (to the part before the first cleared result, often the
 * system prompt alone). `before` tells, reply by reply, whether such a clearing came before the reply's call.
 */
export class UnloggedMicrocompacts {
  /** By branch: the recorded prompt and cache read of its latest call. */
  private readonly last = new Map<number, { prompt: number; read: number }>();

  /** A compaction was logged: the next call's fall is its own, not a clearing. */
  compacted(): void {
    this.last.clear();
  }

  before(version: unknown, thread: number, usage: Record<string, unknown> | undefined): boolean {
    if (!isObject(usage)) return false;
    const call = callOfUsage(usage);
    const prompt = call.uncached + call.written + call.read;
    if (prompt === 0) return false;
    const previous = this.last.get(thread);
    this.last.set(thread, { prompt, read: call.read });
    if (previous === undefined || !versionIn(version, UNLOGGED_FROM, UNLOGGED_TO)) return false;
    return previous.prompt - prompt >= LEAST_DROP && call.read < previous.read;
  }
}
