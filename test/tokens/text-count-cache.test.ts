import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TextCountCache, fingerprint } from '../../src/tokens/text-count-cache.js';

/** Texts of 1,000 characters that differ at one character the fingerprint does not read: all of one fingerprint. */
function sameFingerprint(n: number): string[] {
  const base = 'x'.repeat(1000);
  const texts = Array.from({ length: n }, (_, i) => `${base.slice(0, 20)}${String.fromCharCode(0x4e00 + i)}${base.slice(21)}`);
  expect(new Set(texts.map(fingerprint)).size).toBe(1);
  return texts;
}

/** The same characters in another string, as a second JSON.parse of the same line gives. */
const anew = (text: string): string => text.slice(0, 10) + text.slice(10);

/** Looks `text` up and stores `count` on a miss; returns what the lookup found. */
function lookUp(cache: TextCountCache, text: string, count: number): number {
  const found = cache.get(text);
  if (found < 0) cache.set(text, count);
  return found;
}

describe('the text count cache', () => {
  it('finds an equal text built anew and gives texts of one fingerprint their own counts', () => {
    const cache = new TextCountCache(1 << 20);
    const texts = sameFingerprint(4);
    texts.forEach((t, i) => expect(lookUp(cache, t, 100 + i)).toBe(-1));
    texts.forEach((t, i) => expect(cache.get(anew(t))).toBe(100 + i));
  });

  it('replaces a text of a crowded fingerprint instead of adding it, and still never gives a wrong count', () => {
    const cache = new TextCountCache(1 << 20);
    const texts = sameFingerprint(40);
    for (let round = 0; round < 3; round++)
      texts.forEach((t, i) => {
        const found = lookUp(cache, t, 100 + i);
        expect([-1, 100 + i]).toContain(found);
      });
    // The texts of the fingerprint are replaced in turn, so the newest stay.
    expect(texts.slice(36).map((t) => cache.get(anew(t)))).toEqual([136, 137, 138, 139]);
    expect(cache.get(anew(texts[0]))).toBe(-1);
  });

  it('starts over when its texts would exceed its characters', () => {
    const cache = new TextCountCache(1000);
    const [a, b, c] = ['a', 'b', 'c'].map((ch) => ch.repeat(400));
    lookUp(cache, a, 1);
    lookUp(cache, b, 2);
    expect(cache.get(anew(a))).toBe(1);
    lookUp(cache, c, 3);
    expect(cache.get(anew(a))).toBe(-1);
    expect(cache.get(anew(b))).toBe(-1);
    expect(cache.get(anew(c))).toBe(3);
  });

  it('gives each text its last stored count or none, whatever the order of lookups (against a map)', () => {
    // Few distinct texts, many of one fingerprint, some only their length apart, in a cache that starts over often.
    const pool = [...sameFingerprint(6), ...Array.from({ length: 8 }, (_, i) => `${'y'.repeat(60 + (i % 3))}${i}`), 'z'.repeat(500)];
    fc.assert(
      fc.property(fc.array(fc.nat({ max: pool.length - 1 }), { minLength: 1, maxLength: 200 }), (picks) => {
        const cache = new TextCountCache(3000);
        const model = new Map<string, number>();
        picks.forEach((at, step) => {
          const text = anew(pool[at]);
          const found = lookUp(cache, text, step);
          if (found >= 0) expect(found).toBe(model.get(pool[at]));
          else model.set(pool[at], step);
        });
      }),
      { numRuns: 300, seed: 60 },
    );
  });
});
