/**
 * The Unicode classes the o200k split pattern tests, per code point, computed by the same regular-expression engine
 * that runs gpt-tokenizer's pattern: the hand-written splitter and the pattern then agree on every code point whatever
 * Unicode version the runtime ships. Filled lazily by blocks of 256 code points (a block costs a few hundred regex
 * tests), so a thread that only sees ASCII and a few scripts classifies only those.
 */

/** `\p{L}` */
export const LETTER = 1;
/** `\p{N}` */
export const NUMBER = 2;
/** `\s` */
export const SPACE = 4;
/** `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`: the pattern's upper-case run. */
export const UPPER_RUN = 8;
/** `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`: the pattern's lower-case run. */
export const LOWER_RUN = 16;
/** `\r` or `\n` */
export const LINE_BREAK = 32;

const BLOCK_BITS = 8;
const classes = new Uint8Array(0x110000);
const filled = new Uint8Array(0x110000 >>> BLOCK_BITS);

const TESTS: readonly [RegExp, number][] = [
  [/^\p{L}$/u, LETTER],
  [/^\p{N}$/u, NUMBER],
  [/^\s$/u, SPACE],
  [/^[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]$/u, UPPER_RUN],
  [/^[\p{Ll}\p{Lm}\p{Lo}\p{M}]$/u, LOWER_RUN],
  [/^[\r\n]$/u, LINE_BREAK],
];

function fill(block: number): void {
  const first = block << BLOCK_BITS;
  for (let cp = first; cp < first + (1 << BLOCK_BITS); cp++) {
    // A lone surrogate code point is one character to a `u` regex, as it is to the splitter.
    const char = String.fromCodePoint(cp);
    let bits = 0;
    for (const [test, bit] of TESTS) if (test.test(char)) bits |= bit;
    classes[cp] = bits;
  }
  filled[block] = 1;
}

/** The class bits of a code point. */
export function classOf(codePoint: number): number {
  const block = codePoint >>> BLOCK_BITS;
  if (filled[block] === 0) fill(block);
  return classes[codePoint];
}
