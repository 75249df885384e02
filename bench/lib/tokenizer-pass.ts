/**
 * Child process of the tokenizer benchmark (only run, never imported except for types): loads one corpus, then counts it with one tokenizer `passes` times and
 * prints `{ passesMs, tokens }` as JSON. A fresh process per (tokenizer, corpus) makes the first pass truly cold
 * (gpt-tokenizer keeps a merge cache of 100k chunks, which later passes over the same texts hit).
 */
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { getEncoding } from 'js-tiktoken';
import { bpeCounter } from '../../src/tokens/bpe-engines.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { corpusTexts, type CorpusSpec } from './corpora.js';

export const COUNTERS = ['gpt-tokenizer', 'ai-tokenizer', 'js-tiktoken', 'tcompact-engine', 'tcompact', 'heuristic'] as const;
export type CounterName = (typeof COUNTERS)[number];

/** Special-token strings such as `<|endoftext|>` are counted as plain text by every library. */
function counter(name: CounterName): (text: string) => number {
  switch (name) {
    case 'gpt-tokenizer': {
      const options = { disallowedSpecial: new Set<string>() };
      return (t) => countTokens(t, options);
    }
    case 'ai-tokenizer':
      return bpeCounter('o200k_base', 'ai-tokenizer');
    case 'js-tiktoken': {
      const enc = getEncoding('o200k_base');
      return (t) => enc.encode(t, [], []).length;
    }
    case 'tcompact-engine':
      return bpeCounter('o200k_base', 'tcompact');
    case 'tcompact':
      return (t) => getTokenizer('o200k_base').count(t);
    case 'heuristic':
      return (t) => getTokenizer('heuristic').count(t);
  }
}

export interface PassResult {
  passesMs: number[];
  tokens: number;
  /** Texts the counter threw on (then counted as 0). */
  failures: number;
}

async function main(): Promise<void> {
  const [name, specJson, passesText, tmpDir] = process.argv.slice(2);
  const texts = await corpusTexts(JSON.parse(specJson) as CorpusSpec, tmpDir);
  const count = counter(name as CounterName);
  const passesMs: number[] = [];
  let tokens = 0;
  let failures = 0;
  for (let pass = 0; pass < Number(passesText); pass++) {
    let total = 0;
    failures = 0;
    const started = performance.now();
    for (const t of texts) {
      try {
        total += count(t);
      } catch {
        failures++;
      }
    }
    passesMs.push(performance.now() - started);
    tokens = total;
  }
  const result: PassResult = { passesMs, tokens, failures };
  process.stdout.write(JSON.stringify(result));
}

await main();
