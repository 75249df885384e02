import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { canonicalJson } from '../io/canonical-json.js';
import type { ChatUsage } from './client.js';

/** SHA-256 of the canonical JSON of `parts`: equal inputs give equal keys whatever their key order. */
export function cacheKey(parts: unknown): string {
  return createHash('sha256').update(canonicalJson(parts)).digest('hex');
}

/**
 * What a question came to: an accepted answer (stored only after it passed the caller's guards), or the reasons every
 * answer was rejected, so that a re-run falls back the same way without paying again. Transient failures (429, 5xx,
 * timeouts) are never stored.
 */
export type CachedAnswer =
  | {
      text: string;
      /** What the answer cost when it was paid for. */
      usage: ChatUsage;
    }
  | { rejected: string[] };

function validEntry(value: unknown): CachedAnswer | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  if (Array.isArray(v.rejected) && v.rejected.every((r) => typeof r === 'string')) return { rejected: v.rejected as string[] };
  const u = v.usage as Record<string, unknown> | undefined;
  if (typeof v.text !== 'string' || !u || typeof u.promptTokens !== 'number' || typeof u.completionTokens !== 'number') return undefined;
  return { text: v.text, usage: { promptTokens: u.promptTokens, completionTokens: u.completionTokens } };
}

/**
 * Settled questions on disk, one file per key (`<dir>/<2 hex>/<64 hex>.json`), so a re-run or a resume never pays
 * twice for the same request. Writes are atomic (temp file, fsync, rename; the temp name holds pid and thread id), so
 * a crash leaves either the whole entry or none. An unreadable entry counts as a miss.
 */
export class AnswerCache {
  constructor(readonly dir: string) {}

  private pathOf(key: string): string {
    return join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  async get(key: string): Promise<CachedAnswer | undefined> {
    let text: string;
    try {
      text = await readFile(this.pathOf(key), 'utf8');
    } catch {
      return undefined;
    }
    try {
      return validEntry(JSON.parse(text));
    } catch {
      return undefined;
    }
  }

  /** Stores an answer; returns the error message instead of throwing (a failed cache write never fails a job). */
  async put(key: string, answer: CachedAnswer): Promise<string | undefined> {
    const path = this.pathOf(key);
    const temp = `${path}.${process.pid}.${threadId}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await mkdir(join(this.dir, key.slice(0, 2)), { recursive: true });
      const handle = await open(temp, 'w');
      try {
        await handle.writeFile(`${JSON.stringify(answer)}\n`, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, path);
      return undefined;
    } catch (err) {
      await rm(temp, { force: true }).catch(() => undefined);
      return err instanceof Error ? err.message : String(err);
    }
  }

  /** Removes temp files a killed run left behind. Call once at start, before any job of this run writes. */
  async removeStaleTemps(): Promise<number> {
    let removed = 0;
    let shards: string[];
    try {
      shards = await readdir(this.dir);
    } catch {
      return 0;
    }
    for (const shard of shards) {
      let files: string[];
      try {
        files = await readdir(join(this.dir, shard));
      } catch {
        continue;
      }
      for (const f of files) {
        if (!f.endsWith('.tmp')) continue;
        await rm(join(this.dir, shard, f), { force: true });
        removed++;
      }
    }
    return removed;
  }
}
