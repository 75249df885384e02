import { LETTER, LINE_BREAK, LOWER_RUN, NUMBER, SPACE, UPPER_RUN, classOf } from './code-point-classes.js';

/**
 * gpt-tokenizer's o200k_base split pattern, written out as a scanner over UTF-16 code units, so splitting allocates
 * no match arrays and no substrings. The pattern, alternatives tried in order at each position:
 *
 *   1. [^\r\n\p{L}\p{N}]?[UPPER]*[LOWER]+CONTRACTION?
 *   2. [^\r\n\p{L}\p{N}]?[UPPER]+[LOWER]*CONTRACTION?
 *   3. \p{N}{1,3}
 *   4. ' '?[^\s\p{L}\p{N}]+[\r\n/]*
 *   5. \s*[\r\n]+
 *   6. \s+(?!\S)
 *   7. \s+
 *
 * with UPPER = [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}], LOWER = [\p{Ll}\p{Lm}\p{Lo}\p{M}] and CONTRACTION =
 * '(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]). Each function below returns the end of the match the regex
 * engine's backtracking finds first (greedy quantifiers, leftmost alternative), or -1. Every code point starts some
 * alternative, so the pieces tile the text as the regex's successive matches do.
 */

/** Code units of the code point read by the last {@link classAt}. */
let width = 1;

/**
 * The classes of ASCII, looked up without {@link classOf}'s lazy fill: most text is ASCII. Written out as classOf gives
 * them (a test holds them to it): loading the module then compiles none of its Unicode property regexes, which the
 * heuristic counter's threads never use.
 */
// prettier-ignore
export const ASCII_CLASSES = Uint8Array.of(
  0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 36, 4, 4, 36, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0,
  0, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9,
  9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 0, 0, 0, 0, 0,
  0, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17,
  17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 17, 0, 0, 0, 0, 0,
);

/** The class bits of the code point at `i` (a lone surrogate is a code point of its own, as to a `u` regex). */
function classAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c < 0x80) {
    width = 1;
    return ASCII_CLASSES[c];
  }
  if (c < 0xd800 || c > 0xdbff || i + 1 >= text.length) {
    width = 1;
    return classOf(c);
  }
  const d = text.charCodeAt(i + 1);
  if (d < 0xdc00 || d > 0xdfff) {
    width = 1;
    return classOf(c);
  }
  width = 2;
  return classOf(((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000);
}

/** `[^\r\n\p{L}\p{N}]`: the optional character before a word. */
function isWordPrefix(bits: number): boolean {
  return (bits & (LINE_BREAK | LETTER | NUMBER)) === 0;
}

/** `[^\s\p{L}\p{N}]`: punctuation, symbols, marks, anything else. */
function isOther(bits: number): boolean {
  return (bits & (SPACE | LETTER | NUMBER)) === 0;
}

/** The end of an optional contraction suffix at `i` (`i` itself when there is none). */
function contractionEnd(text: string, i: number): number {
  if (text.charCodeAt(i) !== 0x27 || i + 1 >= text.length) return i;
  // `| 0x20` lower-cases an ASCII letter and maps nothing else onto one.
  const a = text.charCodeAt(i + 1) | 0x20;
  if (a === 0x73 || a === 0x64 || a === 0x6d || a === 0x74) return i + 2; // s d m t
  if (i + 2 >= text.length) return i;
  const b = text.charCodeAt(i + 2) | 0x20;
  if ((a === 0x6c && b === 0x6c) || (a === 0x76 && b === 0x65) || (a === 0x72 && b === 0x65)) return i + 3; // ll ve re
  return i;
}

/** The end of a run of LOWER code points from `i` (`i` itself when there is none). */
function lowerRunEnd(text: string, i: number): number {
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c < 0x80) {
      if ((ASCII_CLASSES[c] & LOWER_RUN) === 0) break;
      i++;
    } else if ((classAt(text, i) & LOWER_RUN) !== 0) i += width;
    else break;
  }
  return i;
}

/** Alternative 1 from `j`, the prefix already taken: `[UPPER]*[LOWER]+CONTRACTION?`. */
function lowerWord(text: string, j: number): number {
  const n = text.length;
  let k = j;
  // Where the LOWER run may start once UPPER* gives back characters: the greedy run's end if that is LOWER, else the
  // last character of the run that is both (Lm, Lo, marks).
  let lastBoth = -1;
  while (k < n) {
    const bits = classAt(text, k);
    if ((bits & UPPER_RUN) === 0) break;
    if ((bits & LOWER_RUN) !== 0) lastBoth = k;
    k += width;
  }
  let start: number;
  if (k < n && (classAt(text, k) & LOWER_RUN) !== 0) start = k;
  else if (lastBoth >= 0) start = lastBoth;
  else return -1;
  return contractionEnd(text, lowerRunEnd(text, start));
}

/** Alternative 2 from `j`, the prefix already taken: `[UPPER]+[LOWER]*CONTRACTION?`. */
function upperWord(text: string, j: number): number {
  const n = text.length;
  let k = j;
  while (k < n && (classAt(text, k) & UPPER_RUN) !== 0) k += width;
  if (k === j) return -1;
  return contractionEnd(text, lowerRunEnd(text, k));
}

/** Alternative 4 from `i`: `' '?[^\s\p{L}\p{N}]+[\r\n/]*`. */
function otherRun(text: string, i: number): number {
  const n = text.length;
  let j = i;
  if (text.charCodeAt(i) === 0x20 && i + 1 < n && isOther(classAt(text, i + 1))) j = i + 1;
  if (!isOther(classAt(text, j))) return -1;
  while (j < n) {
    const c = text.charCodeAt(j);
    if (c < 0x80) {
      if (!isOther(ASCII_CLASSES[c])) break;
      j++;
    } else if (isOther(classAt(text, j))) j += width;
    else break;
  }
  for (let c = text.charCodeAt(j); j < n && (c === 0x0d || c === 0x0a || c === 0x2f); c = text.charCodeAt(++j));
  return j;
}

/** Alternatives 5 to 7 from `i`, a white-space character. White space is all in the BMP: one code unit each. */
function spaceRun(text: string, i: number): number {
  const n = text.length;
  let k = i;
  let afterLastBreak = -1;
  while (k < n && (classAt(text, k) & SPACE) !== 0) {
    const c = text.charCodeAt(k);
    k++;
    if (c === 0x0d || c === 0x0a) afterLastBreak = k;
  }
  if (afterLastBreak >= 0) return afterLastBreak; // \s*[\r\n]+ backs off to the run's last line break
  if (k === n || k - i === 1) return k; // \s+(?!\S) at the end, or \s+
  return k - 1; // \s+(?!\S) leaves the last space to the word after it
}

/** Alternative 3 from `i`, a number of `first` code units: `\p{N}{1,3}`. */
function numberEnd(text: string, i: number, first: number): number {
  let k = i + first;
  for (let taken = 1; taken < 3 && k < text.length && (classAt(text, k) & NUMBER) !== 0; taken++) k += width;
  return k;
}

function isAsciiLetter(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

/**
 * Alternatives 1 and 2 from `j`, an ASCII letter, while the text stays ASCII: an upper-case run, then a lower-case run
 * (alternative 1) or none (alternative 2, as no ASCII letter is both upper and lower case). -1 when a non-ASCII
 * character right after the upper-case run leaves the choice to the general path.
 */
function asciiWordEnd(text: string, j: number): number {
  const n = text.length;
  let k = j;
  let c = text.charCodeAt(k);
  while (c >= 0x41 && c <= 0x5a) c = ++k < n ? text.charCodeAt(k) : -1;
  if (c >= 0x61 && c <= 0x7a) return contractionEnd(text, lowerRunEnd(text, k));
  if (c >= 0x80) return -1;
  return contractionEnd(text, k);
}

/** The end of the o200k piece that starts at `i` (< text.length). */
export function o200kPieceEnd(text: string, i: number): number {
  // ASCII followed by ASCII, the usual case, takes a shorter path: words (with a space or a punctuation mark before
  // them), numbers, punctuation, white space. It gives the same ends as the general path below, to which it leaves
  // anything else.
  const c = text.charCodeAt(i);
  if (c < 0x80) {
    const n = text.length;
    const next = i + 1 < n ? text.charCodeAt(i + 1) : -1;
    const ascii = ASCII_CLASSES[c];
    let end = -1;
    if (isAsciiLetter(c)) end = asciiWordEnd(text, i);
    else if (next < 0x80) {
      // The next character is no letter or mark, so neither word alternative can match here.
      if (isAsciiLetter(next)) end = isWordPrefix(ascii) ? asciiWordEnd(text, i + 1) : -1;
      else if ((ascii & NUMBER) !== 0) end = numberEnd(text, i, 1);
      else if ((end = otherRun(text, i)) < 0 && (ascii & SPACE) !== 0) end = spaceRun(text, i);
    }
    if (end >= 0) return end;
  }
  const bits = classAt(text, i);
  const first = width;
  const prefix = isWordPrefix(bits);
  let end: number;
  if (prefix && (end = lowerWord(text, i + first)) >= 0) return end;
  if ((bits & (UPPER_RUN | LOWER_RUN)) !== 0 && (end = lowerWord(text, i)) >= 0) return end;
  if (prefix && (end = upperWord(text, i + first)) >= 0) return end;
  if ((bits & UPPER_RUN) !== 0 && (end = upperWord(text, i)) >= 0) return end;
  if ((bits & NUMBER) !== 0) return numberEnd(text, i, first);
  if ((end = otherRun(text, i)) >= 0) return end;
  if ((bits & SPACE) !== 0) return spaceRun(text, i);
  // Unreachable: every code point is a letter, a number, white space or "other".
  return i + first;
}
