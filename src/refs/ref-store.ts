import { hash } from 'node:crypto';
import { REF_LENGTH } from '../model/ref.js';
import { formatRefLine } from './ref-file.js';

/** Length of a short reference in hex characters (64 bits of SHA-256: collisions need ~4e9 distinct pieces). */
export { REF_LENGTH };

export function refOf(data: string): string {
  // The one-shot hash: half the time of createHash().update().digest() on the short pieces a strategy stores.
  return hash('sha256', data, 'hex').slice(0, REF_LENGTH);
}

/**
 * Collects content that a strategy replaced or removed, keyed by its content hash. A sink is filled inside a worker
 * and its entries travel back with the shard; `--no-refs` passes no sink at all.
 */
export class RefSink {
  readonly entries = new Map<string, string>();
  /** Refs whose data is JSON text (stored by {@link putJson} or {@link putValue}): refs.jsonl embeds it as it is. */
  readonly jsonRefs = new Set<string>();
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

  /** {@link put} for data that is JSON text (`JSON.stringify`'s output), which the side store file keeps unescaped. */
  putJson(json: string, ref = refOf(json)): string {
    if (!this.entries.has(ref)) {
      this.entries.set(ref, json);
      this.jsonRefs.add(ref);
    }
    return ref;
  }

  /** Every entry as refs.jsonl lines, in order of first appearance. */
  lines(): string {
    let text = '';
    for (const [ref, data] of this.entries) text += formatRefLine(ref, data, this.jsonRefs.has(ref));
    return text;
  }

  /**
   * Stores a message's content or one of its parts as JSON (`json`, `ref`: when the caller already has them) and
   * remembers the ref, so the restore recipe can point at it instead of storing it a second time inside the message.
   */
  putValue(value: unknown, json = JSON.stringify(value), ref = refOf(json)): string {
    this.putJson(json, ref);
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
