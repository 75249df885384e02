import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { corpusTexts, realCorpora, type CorpusSpec } from './lib/corpora.js';
import { ROOT } from './lib/paths.js';
import type { Benchmark, BenchContext, BenchOutput, Cell, Table } from './lib/results.js';
import { utf8Bytes } from './lib/texts.js';
import type { CounterName, PassResult } from './lib/tokenizer-pass.js';
import { readInputs } from '../src/formats/read-inputs.js';
import { countTranscript } from '../src/tokens/breakdown.js';
import { bpeCounter } from '../src/tokens/bpe-engines.js';
import type { Tokenizer } from '../src/tokens/tokenizer.js';

const run = promisify(execFile);
const PASS_SCRIPT = join(ROOT, 'bench', 'lib', 'tokenizer-pass.ts');
const COUNTERS: readonly CounterName[] = ['gpt-tokenizer', 'ai-tokenizer', 'js-tiktoken', 'tcompact-engine', 'tcompact', 'heuristic'];

interface Row {
  corpus: string;
  counter: CounterName;
  textMB: number;
  texts: number;
  tokens: number;
  failures: number;
  coldMBps: number;
  /** Median of the passes after the first; null for counters with a text cache (later passes are all hits). */
  warmMBps: number | null;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function measure(counter: CounterName, spec: CorpusSpec, passes: number, tmpDir: string): Promise<PassResult> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', PASS_SCRIPT, counter, JSON.stringify(spec), String(passes), tmpDir], {
    cwd: ROOT,
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout) as PassResult;
}

export const tokenizerBench: Benchmark = {
  name: 'tokenizer',
  entry: import.meta.url,
  alsoRuns: ['bench/lib/tokenizer-pass.ts'],
  title: "Tokenizer throughput: gpt-tokenizer vs ai-tokenizer vs js-tiktoken vs tcompact's engine vs heuristic",
  description:
    'MB/s of UTF-8 text counted on one core, o200k_base. The texts are the conversation fields of each corpus (message ' +
    'text, reasoning, tool-call arguments, tool results). Each (counter, corpus) runs in a fresh process: "cold" is the ' +
    'first pass, "warm" the median of the later passes over the same texts (gpt-tokenizer\'s 100k-entry merge cache is ' +
    'then full of this corpus\'s chunks). `tcompact` is `getTokenizer("o200k_base")`: gpt-tokenizer behind a per-text ' +
    'cache, so only its first pass means anything.',
  async run(ctx: BenchContext): Promise<BenchOutput> {
    const passes = 6;
    const corpora: CorpusSpec[] = ctx.quick
      ? [realCorpora(true)[0]]
      : [...realCorpora(false), { name: 'synthetic 8 MB (seed 1)', kind: 'synthetic', seed: 1, bytes: 8_000_000 }];
    const rows: Row[] = [];
    for (const spec of corpora) {
      const texts = await corpusTexts(spec, ctx.tmpDir);
      const textMB = utf8Bytes(texts) / 1e6;
      for (const counter of COUNTERS) {
        ctx.log(`tokenizer: ${counter} on ${spec.name} (${textMB.toFixed(1)} MB of text)`);
        const r = await measure(counter, spec, counter === 'tcompact' ? 1 : passes, ctx.tmpDir);
        const mbps = (ms: number) => textMB / (ms / 1000);
        rows.push({
          corpus: spec.name,
          counter,
          textMB,
          texts: texts.length,
          tokens: r.tokens,
          failures: r.failures,
          coldMBps: mbps(r.passesMs[0]),
          warmMBps: r.passesMs.length > 1 ? mbps(median(r.passesMs.slice(1))) : null,
        });
      }
    }
    const table: Table = {
      title: 'Tokenizer MB/s (one core, o200k_base)',
      columns: ['corpus', 'text MB', 'counter', 'tokens', 'cold MB/s', 'warm MB/s', 'vs gpt-tokenizer (warm)'],
      rows: rows.map((r): Cell[] => {
        const gpt = rows.find((o) => o.corpus === r.corpus && o.counter === 'gpt-tokenizer');
        const speedup =
          r.counter !== 'gpt-tokenizer' && r.counter !== 'heuristic' && gpt?.warmMBps && r.warmMBps ? `${(r.warmMBps / gpt.warmMBps).toFixed(2)}x` : '';
        return [r.corpus, r.textMB, r.counter, r.tokens, r.coldMBps, r.warmMBps, speedup];
      }),
      headline: true,
    };
    const mismatches = corpora.filter((c) => new Set(rows.filter((r) => r.corpus === c.name && r.counter !== 'heuristic').map((r) => r.tokens)).size > 1);
    table.notes = [
      mismatches.length === 0
        ? "gpt-tokenizer, ai-tokenizer, js-tiktoken and tcompact's engine give the same token total on every corpus."
        : `Token totals differ on: ${mismatches.map((c) => c.name).join(', ')}.`,
      'heuristic = ceil(UTF-16 length / 4); its token column shows how far the estimate is from the exact count.',
      ...rows.filter((r) => r.failures > 0).map((r) => `${r.counter} threw on ${r.failures} texts of ${r.corpus} (counted as 0).`),
    ];
    const parity = await engineParity(ctx);
    table.notes.push(parity.note);
    if (parity.differences > 0) throw new Error(`tokenizer: ${parity.note}`);
    return { params: { passes, corpora: corpora.map((c) => c.name), encoding: 'o200k_base' }, results: rows, tables: [table] };
  },
};

/**
 * tcompact's engine (the default) and ai-tokenizer against gpt-tokenizer on every string the readers give tcompact's counter, on the shared corpus
 * (TCOMPACT_CORPUS) or else the bundled data: a difference fails the benchmark, so a CI run of `bench --quick` checks
 * what npm test checks on a sample only.
 */
async function engineParity(ctx: BenchContext): Promise<{ differences: number; note: string }> {
  const corpus = process.env.TCOMPACT_CORPUS;
  const paths = corpus
    ? ['spotter', 'session-share', 'tau-bench', 'swe-agent', 'openhands'].map((d) => join(corpus, d, 'files'))
    : [join(ROOT, 'datasets', 'bundled')];
  const strings = new Set<string>();
  const recorder: Tokenizer = {
    name: 'o200k_base',
    engine: null,
    count(text) {
      strings.add(text);
      return 0;
    },
  };
  for await (const item of readInputs(paths, { maxLineBytes: 64 * 1024 * 1024 })) if (item.kind === 'transcript') countTranscript(item.transcript, recorder);
  ctx.log(
    `tokenizer: parity of tcompact's engine and ai-tokenizer with gpt-tokenizer on ${strings.size} strings (${corpus ? 'shared corpus' : 'bundled data'})`,
  );
  const gpt = bpeCounter('o200k_base', 'gpt-tokenizer');
  const engines = (['tcompact', 'ai-tokenizer'] as const).map((engine) => ({ engine, count: bpeCounter('o200k_base', engine), differences: 0 }));
  for (const text of strings) {
    const expected = gpt(text);
    for (const e of engines) if (e.count(text) !== expected) e.differences++;
  }
  const where = corpus ? 'the shared corpus' : 'the bundled data';
  const differences = engines.reduce((sum, e) => sum + e.differences, 0);
  return {
    differences,
    note:
      differences === 0
        ? `tcompact's engine, ai-tokenizer and gpt-tokenizer count every one of the ${strings.size} strings of ${where} the same (o200k_base).`
        : engines.map((e) => `${e.engine} and gpt-tokenizer differ on ${e.differences} of the ${strings.size} strings of ${where}.`).join(' '),
  };
}
