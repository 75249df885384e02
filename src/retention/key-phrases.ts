/**
 * Key phrases of a user request, for the overlap rule of intent probes: the request's content words (lower-cased
 * letters and digits, at least 3 characters or containing a digit, minus common English function words) taken in
 * order, and every pair of consecutive content words is one key phrase. A request with a single content word has that
 * word as its only key phrase; one with none has no key phrase and yields no overlap probe.
 */
const STOPWORDS = new Set(
  (
    'the and for are but not you all any can had her was one our out his has him how its may new now old see two way who ' +
    'did get got let say she too use yes okay please thanks thank just also into then than that this these those them ' +
    'they their there here what when where which while with would could should will shall been being have having does ' +
    'doing done from about above after again against because before below between both down during each few further ' +
    "more most other over same some such only own very can't don't won't isn't it's i'm let's your yours mine " +
    'ours myself yourself itself well like make sure want need know think'
  ).split(/\s+/),
);

const WORD = /[\p{L}\p{N}_]+/gu;

/** Content words of a text, in order (duplicates kept). */
function contentWords(text: string): string[] {
  const out: string[] = [];
  for (const match of text.toLowerCase().matchAll(WORD)) {
    const w = match[0];
    if ((w.length >= 3 || /\d/.test(w)) && !STOPWORDS.has(w)) out.push(w);
  }
  return out;
}

/** The distinct key phrases of a request, in order of first appearance. */
export function keyPhrases(text: string): string[] {
  const words = contentWords(text);
  if (words.length === 1) return words;
  const seen = new Set<string>();
  for (let i = 1; i < words.length; i++) seen.add(`${words[i - 1]} ${words[i]}`);
  return [...seen];
}

/** Every key phrase a text contains (single content words and consecutive pairs), for lookups. */
export function phraseIndex(text: string): Set<string> {
  const words = contentWords(text);
  const index = new Set<string>(words);
  for (let i = 1; i < words.length; i++) index.add(`${words[i - 1]} ${words[i]}`);
  return index;
}

/**
 * Share of a request's key phrases a compacted context must contain for the request to count as retained. Half: a
 * summary that restates the request usually keeps most of its word pairs, while unrelated text of the same session
 * rarely holds half of them.
 */
export const REQUEST_OVERLAP_THRESHOLD = 0.5;
