import { createHash } from 'node:crypto';
import { REF_LENGTH } from '../model/ref.js';

/** Length of a short reference in hex characters (64 bits of SHA-256: collisions need ~4e9 distinct pieces). */
export { REF_LENGTH };

export function refOf(data: string): string {
  return createHash('sha256').update(data).digest('hex').slice(0, REF_LENGTH);
}

/**
 * Collects content that a strategy replaced or removed, keyed by its content hash. A sink is filled inside a worker
 * and its entries travel back with the shard; `--no-refs` passes no sink at all.
 */
export class RefSink {
  readonly entries = new Map<string, string>();
  /** Refs of values stored by {@link putValue}, keyed by the value (a content string, a parts array, a part). */
  private readonly values = new Map<unknown, string>();

  /**
   * Stores `data` and returns its short reference; storing the same data twice returns the same reference. `ref`, when
   * the caller already hashed `data`, must be `refOf(data)`.
   */
  put(data: string, ref = refOf(data)): string {
    if (!this.entries.has(ref)) this.entries.set(ref, data);
    return ref;
  }

  /**
   * Stores a message's content or one of its parts as JSON (`json`, `ref`: when the caller already has them) and
   * remembers the ref, so the restore recipe can point at it instead of storing it a second time inside the message.
   */
  putValue(value: unknown, json = JSON.stringify(value), ref = refOf(json)): string {
    this.put(json, ref);
    this.values.set(value, ref);
    return ref;
  }

  /** The ref under which {@link putValue} stored this value, if it did. */
  storedRef(value: unknown): string | undefined {
    return this.values.get(value);
  }

  get(ref: string): string | undefined {
    return this.entries.get(ref);
  }
}
