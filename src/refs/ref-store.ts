import { createHash } from 'node:crypto';

/** Length of a short reference in hex characters (64 bits of SHA-256: collisions need ~4e9 distinct pieces). */
export const REF_LENGTH = 16;

export function refOf(data: string): string {
  return createHash('sha256').update(data).digest('hex').slice(0, REF_LENGTH);
}

/**
 * Collects content that a strategy replaced or removed, keyed by its content hash. A sink is filled inside a worker
 * and its entries travel back with the shard; `--no-refs` passes no sink at all.
 */
export class RefSink {
  readonly entries = new Map<string, string>();

  /** Stores `data` and returns its short reference; storing the same data twice returns the same reference. */
  put(data: string): string {
    const ref = refOf(data);
    if (!this.entries.has(ref)) this.entries.set(ref, data);
    return ref;
  }

  get(ref: string): string | undefined {
    return this.entries.get(ref);
  }
}
