import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bpeCounter } from '../../src/tokens/bpe-engines.js';
import { o200kPieceEnd } from '../../src/tokens/o200k-split.js';

/** gpt-tokenizer's o200k split pattern, which the hand-written splitter must reproduce match for match. */
function o200kPattern(): RegExp {
  const require = createRequire(import.meta.url);
  const { O200K_TOKEN_SPLIT_REGEX } = require('gpt-tokenizer/cjs/encodingParams/constants') as { O200K_TOKEN_SPLIT_REGEX: RegExp };
  return new RegExp(O200K_TOKEN_SPLIT_REGEX.source, 'gu');
}

function regexPieces(regex: RegExp, text: string): string[] {
  return [...text.matchAll(regex)].map((m) => m[0]);
}

function scannerPieces(text: string): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length;) {
    const end = o200kPieceEnd(text, i);
    pieces.push(text.slice(i, end));
    i = end;
  }
  return pieces;
}

/**
 * Characters where the pattern's alternatives part ways: cased and uncased letters, modifier letters, combining
 * marks, digits of several scripts, every kind of white space and line break, apostrophes and contraction letters,
 * slashes, punctuation, CJK, astral letters and emoji, lone surrogates.
 */
const PICKS = [
  'a',
  'z',
  'A',
  'Z',
  's',
  'S',
  'l',
  'L',
  'v',
  'e',
  'E',
  'r',
  'R',
  'd',
  'm',
  't',
  'T',
  "'",
  '\u2019',
  '/',
  '\\',
  '.',
  ',',
  '!',
  '-',
  '_',
  '(',
  '"',
  ' ',
  ' ',
  '  ',
  '\t',
  '\n',
  '\r',
  '\r\n',
  '\u000b',
  '\u000c',
  '\u00a0',
  '\u2028',
  '\u3000',
  '\ufeff',
  '\u200d',
  '0',
  '7',
  '12345',
  '\u0663',
  '\u00bd',
  '\u2167',
  '\u0301',
  '\u0308',
  '\u093f',
  '\u02b0',
  '\u01c5',
  '\u00e9',
  '\u00c9',
  '\u00df',
  '\u65e5',
  '\u672c',
  '\u306e',
  '\u30c6',
  '\ud55c',
  '\u0416',
  '\u0436',
  '\u05d0',
  '\u0627',
  '\u{1F468}',
  '\u{1F3FD}',
  '\u{1D400}',
  '\u{1D41A}',
  '\u{10400}',
  '\u{10428}',
  '\u{20000}',
  '\u{1F600}',
  '\ud800',
  '\udc00',
  '<|endoftext|>',
];

const text = fc
  .array(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...PICKS) }, { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 4 }) }), {
    maxLength: 40,
  })
  .map((parts) => parts.join(''));

describe('tcompact engine (o200k_base): the hand-written splitter and count-only BPE', () => {
  it('splits random Unicode text exactly as the o200k pattern does', () => {
    const regex = o200kPattern();
    fc.assert(
      fc.property(text, (t) => {
        expect(scannerPieces(t)).toEqual(regexPieces(regex, t));
      }),
      { numRuns: 20_000 },
    );
  });

  it('counts random Unicode text exactly as gpt-tokenizer does, in both encodings', () => {
    for (const encoding of ['o200k_base', 'cl100k_base'] as const) {
      const own = bpeCounter(encoding, 'tcompact');
      const gpt = bpeCounter(encoding, 'gpt-tokenizer');
      fc.assert(
        fc.property(text, (t) => {
          expect(own(t)).toBe(gpt(t));
        }),
        { numRuns: 5_000 },
      );
    }
  });

  it('counts long runs and repeated pieces as gpt-tokenizer does (the piece cache hands back what the merges gave)', () => {
    const own = bpeCounter('o200k_base', 'tcompact');
    const gpt = bpeCounter('o200k_base', 'gpt-tokenizer');
    const texts = [
      // gpt-tokenizer finds no token that starts with a byte-order mark (its decoder drops the mark before the lookup),
      // which ai-tokenizer does find: only tcompact's engine counts these as gpt-tokenizer does.
      '\ufeff\ufeffusing x\ufeff\n\n \ufeff\ufeff// \ufeff#',
      'ab'.repeat(3000),
      `${'\u00e9'.repeat(2000)}x`,
      'internationalization '.repeat(50),
      ` ${'\u{1F600}'.repeat(500)}`,
    ];
    for (const t of [...texts, ...texts]) expect(own(t)).toBe(gpt(t));
  });
});
