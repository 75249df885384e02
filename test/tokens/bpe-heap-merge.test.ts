import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BpeCounter, HEAP_MERGE_BYTES } from '../../src/tokens/bpe-count.js';
import { bpeCounter } from '../../src/tokens/bpe-engines.js';
import { buildRankTable } from '../../src/tokens/rank-table.js';

const require = createRequire(import.meta.url);
const table = buildRankTable((require('gpt-tokenizer/cjs/bpeRanks/o200k_base') as { default: (string | number[])[] }).default);
const { CL100K_TOKEN_SPLIT_REGEX } = require('gpt-tokenizer/cjs/encodingParams/constants') as { CL100K_TOKEN_SPLIT_REGEX: RegExp };
const cl100kTable = buildRankTable((require('gpt-tokenizer/cjs/bpeRanks/cl100k_base') as { default: (string | number[])[] }).default);

/** Every piece through the heap, or every piece through the plain loop. */
const heapOnly = () => new BpeCounter(table, null, 0);
const plainOnly = () => new BpeCounter(table, null, Number.POSITIVE_INFINITY);

/** Characters whose runs the splitter keeps whole or cuts in odd places: letters, digits, symbols, spaces, non-ASCII. */
const CHARS = ['x', 'a', 'b', 'Z', '=', '-', '/', '+', '0', '7', ' ', '\n', 'é', 'ß', '中', 'я', '😀', '\u200b', '\ud800'];

/** Runs of a few characters, of lengths on both sides of the heap threshold. */
const runs = fc
  .array(fc.record({ chars: fc.array(fc.constantFrom(...CHARS), { minLength: 1, maxLength: 3 }), length: fc.integer({ min: 1, max: 3 * HEAP_MERGE_BYTES }) }), {
    minLength: 1,
    maxLength: 4,
  })
  .map((parts) => parts.map(({ chars, length }) => Array.from({ length }, (_, i) => chars[i % chars.length]).join('')).join(''));

describe('the heap merge of long pieces', () => {
  it('counts as the plain loop on random text and on runs of few characters, long and short', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 600 }), fc.string({ unit: 'grapheme-ascii', maxLength: 600 }), runs), (text) => {
        expect(heapOnly().count(text)).toBe(plainOnly().count(text));
      }),
      { numRuns: 300, seed: 59 },
    );
  });

  it('counts as the plain loop with a split regex (cl100k_base)', () => {
    const split = new RegExp(CL100K_TOKEN_SPLIT_REGEX.source, 'gu');
    fc.assert(
      fc.property(runs, (text) => {
        expect(new BpeCounter(cl100kTable, split, 0).count(text)).toBe(new BpeCounter(cl100kTable, split, Number.POSITIVE_INFINITY).count(text));
      }),
      { numRuns: 100, seed: 59 },
    );
  });

  it('counts long pieces as gpt-tokenizer does', () => {
    const reference = bpeCounter('o200k_base', 'gpt-tokenizer');
    const counter = bpeCounter('o200k_base', 'tcompact');
    const base64 = Buffer.from(Array.from({ length: 1500 }, (_, i) => (i * 131 + 7) % 256)).toString('base64');
    const hex = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 97 + 3) % 256)).toString('hex');
    for (const text of ['x'.repeat(3000), '='.repeat(3000), 'ab'.repeat(1500), 'é'.repeat(1000), base64, hex, `${'-'.repeat(500)}\n${'#'.repeat(700)}`]) {
      expect(counter(text)).toBe(reference(text));
    }
  });

  it('counts a 4K run as the plain loop, and a 256K run, which takes the plain loop over a minute, without hanging', () => {
    const heap = heapOnly();
    const plain = plainOnly();
    // The plain loop gives n/8 tokens for n 'x', n/4 for 'ab' repeated and n/64 for '=', at each multiple of those sizes it can reach.
    for (const [unit, per] of [
      ['x', 8],
      ['ab', 4],
      ['=', 64],
    ] as const) {
      const run = unit.repeat(4_096 / unit.length);
      expect(plain.count(run)).toBe(4_096 / per);
      expect(heap.count(run)).toBe(4_096 / per);
      expect(bpeCounter('o200k_base', 'tcompact')(unit.repeat(262_144 / unit.length))).toBe(262_144 / per);
    }
  });
});
