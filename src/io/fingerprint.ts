import { createHash } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import { canonicalJson } from './canonical-json.js';

/**
 * What a resume compares to decide that an input file did not change: size and mtime (what make and rsync trust) plus
 * a SHA-256 of the first and last MiB, which catches a rewrite that kept the size and reset the mtime. This costs two
 * reads whatever the file size; the bytes in between are covered by each committed shard's own SHA-256 (range shards),
 * which the resume checks again as it re-plans.
 */
export interface FileFingerprint {
  path: string;
  size: number;
  mtimeMs: number;
  /** SHA-256 of the first and the last EDGE_BYTES (the whole file when it is at most twice that). */
  edgesSha256: string;
}

const EDGE_BYTES = 1024 * 1024;

export async function fingerprintFile(path: string): Promise<FileFingerprint> {
  const info = await stat(path);
  const hash = createHash('sha256');
  const handle = await open(path, 'r');
  try {
    const head = Math.min(info.size, 2 * EDGE_BYTES);
    const ranges: [number, number][] =
      info.size <= 2 * EDGE_BYTES
        ? [[0, head]]
        : [
            [0, EDGE_BYTES],
            [info.size - EDGE_BYTES, EDGE_BYTES],
          ];
    for (const [position, length] of ranges) {
      const buf = Buffer.alloc(length);
      let done = 0;
      while (done < length) {
        const { bytesRead } = await handle.read(buf, done, length - done, position + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      hash.update(buf.subarray(0, done));
    }
  } finally {
    await handle.close();
  }
  return { path, size: info.size, mtimeMs: info.mtimeMs, edgesSha256: hash.digest('hex') };
}

/** SHA-256 of the canonical JSON of a value: equal settings give equal hashes whatever their key order. */
export function canonicalHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

/** Why two fingerprints differ, in words, or undefined when they match. */
export function describeChange(before: FileFingerprint, now: FileFingerprint): string | undefined {
  if (before.size !== now.size) return `${now.path}: size ${before.size} -> ${now.size} bytes`;
  if (before.edgesSha256 !== now.edgesSha256) return `${now.path}: content changed (same size)`;
  if (before.mtimeMs !== now.mtimeMs)
    return `${now.path}: modified (mtime ${new Date(before.mtimeMs).toISOString()} -> ${new Date(now.mtimeMs).toISOString()})`;
  return undefined;
}
