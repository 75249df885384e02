import { findSecrets } from './detector.js';
import { replaceSecrets } from './replace.js';

/** Secrets masked, by kind, in the order first met. */
export type SecretCounts = Record<string, number>;

/**
 * Masks secrets in everything a command shows or writes for people to share (reports, pages, progress, errors) and
 * counts them by kind. `show` (`--show-secrets`) turns it into the identity. Plain objects, arrays and maps are copied
 * with their strings masked, keys included; anything else is kept as it is.
 */
export class SecretMasker {
  readonly counts: SecretCounts = {};

  constructor(readonly show = false) {}

  /** The total masked so far. */
  get total(): number {
    return Object.values(this.counts).reduce((a, b) => a + b, 0);
  }

  text(text: string): string {
    if (this.show || text.length < 8) return text;
    const matches = findSecrets(text);
    if (matches.length === 0) return text;
    for (const m of matches) this.counts[m.kind] = (this.counts[m.kind] ?? 0) + 1;
    return replaceSecrets(text, matches);
  }

  value<T>(value: T): T {
    if (this.show) return value;
    return this.walk(value) as T;
  }

  private walk(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((v) => this.walk(v));
    if (value instanceof Map) return new Map([...value].map(([k, v]) => [this.walk(k), this.walk(v)]));
    if (value === null || typeof value !== 'object') return value;
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[this.text(k)] = this.walk(v);
    return out;
  }
}
