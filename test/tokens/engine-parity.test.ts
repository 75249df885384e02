import { readInputs } from '../../src/formats/read-inputs.js';
import { countTranscript } from '../../src/tokens/breakdown.js';
import { type BpeEncodingName, bpeCounter } from '../../src/tokens/bpe-engines.js';
import type { Tokenizer } from '../../src/tokens/tokenizer.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED } from '../helpers/paths.js';

/**
 * The strings a transcript holds: every string value anywhere in it (ids and metadata included), plus every text
 * tcompact actually hands its tokenizer (tool definitions and unknown-role messages are counted on their JSON).
 */
function stringsOf(value: unknown, into: Set<string>): void {
  if (typeof value === 'string') into.add(value);
  else if (Array.isArray(value)) for (const v of value) stringsOf(v, into);
  else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) stringsOf(v, into);
}

async function corpusStrings(paths: string[]): Promise<string[]> {
  const strings = new Set<string>();
  const recorder: Tokenizer = {
    name: 'o200k_base',
    engine: null,
    count(text) {
      strings.add(text);
      return 0;
    },
  };
  for await (const item of readInputs(paths, { maxLineBytes: 64 * 1024 * 1024 })) {
    if (item.kind !== 'transcript') continue;
    stringsOf(item.transcript, strings);
    countTranscript(item.transcript, recorder);
  }
  return [...strings];
}

/** Strings where BPE libraries are known to part ways: special tokens as text, lone surrogates, ZWJ sequences. */
const EDGE_CASES = [
  '<|endoftext|>',
  'a <|endoftext|> b <|fim_prefix|><|fim_middle|><|fim_suffix|> c <|endofprompt|> <|im_start|>user<|im_end|>',
  'lone high \ud800 and low \udc00 surrogates, reversed \udc00\ud800',
  'family: \u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}, flag \u{1F3F4}\u200D\u2620\uFE0F, skin \u{1F44B}\u{1F3FD}',
  '\r\n\t \u00a0\u2028\u2029  trailing   ',
  // A long run of one character is the worst case of BPE merging (quadratic in both engines): 10,000 shows it at a
  // hundredth of the cost of 100,000.
  'x'.repeat(10_000),
  `${' '.repeat(5_000)}end`,
  '日本語のテキストと한국어 텍스트와 中文文本 mixed with English and числа 12345678901234567890',
  '0123456789'.repeat(50),
];

/** Where tcompact's own engine or ai-tokenizer counts a string otherwise than gpt-tokenizer. */
function differences(strings: readonly string[], encoding: BpeEncodingName): { text: string; own: number; ai: number; gpt: number }[] {
  const own = bpeCounter(encoding, 'tcompact');
  const ai = bpeCounter(encoding, 'ai-tokenizer');
  const gpt = bpeCounter(encoding, 'gpt-tokenizer');
  const out: { text: string; own: number; ai: number; gpt: number }[] = [];
  for (const text of strings) {
    const o = own(text);
    const a = ai(text);
    const g = gpt(text);
    if (o !== g || a !== g) out.push({ text: text.slice(0, 200), own: o, ai: a, gpt: g });
  }
  return out;
}

/** Both engines on ~20 MB of text: slow on a loaded 2-core machine, so above vitest's default budget. */
const TIMEOUT_MS = 600_000;

describe('tcompact (the default engine) and ai-tokenizer count exactly as gpt-tokenizer', () => {
  let bundled: string[];
  beforeAll(async () => {
    bundled = [...(await corpusStrings([BUNDLED])), ...EDGE_CASES];
  }, TIMEOUT_MS);

  for (const encoding of ['o200k_base', 'cl100k_base'] as const) {
    it(`gives the same ${encoding} count on every string of the bundled data and on edge cases`, { timeout: TIMEOUT_MS }, () => {
      expect(bundled.length).toBeGreaterThan(5_000);
      expect(differences(bundled, encoding)).toEqual([]);
    });
  }

  const corpus = process.env.TCOMPACT_CORPUS;
  const shared = ['spotter', 'session-share', 'tau-bench', 'swe-agent', 'openhands'].map((d) => `${corpus}/${d}/files`);
  // Every string of the corpus is compared by the tokenizer benchmark (bench/tokenizer.ts, run by .ci/run), which
  // fails on any difference; here a fixed sample of it keeps npm test fast.
  it.runIf(corpus !== undefined)(
    'gives the same o200k_base count on a fixed sample of the shared corpus strings (TCOMPACT_CORPUS)',
    { timeout: TIMEOUT_MS },
    async () => {
      const strings = await corpusStrings(shared);
      expect(strings.length).toBeGreaterThan(10_000);
      expect(
        differences(
          strings.filter((_, i) => i % 8 === 0),
          'o200k_base',
        ),
      ).toEqual([]);
    },
  );
  if (corpus === undefined) console.warn('engine-parity: TCOMPACT_CORPUS is not set; the shared-corpus comparison is skipped');
});
