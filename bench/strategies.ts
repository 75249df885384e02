import type { Transcript } from '../src/model/transcript.js';
import { countTranscript } from '../src/tokens/breakdown.js';
import { getTokenizer } from '../src/tokens/tokenizer.js';
import { type PipelineStep, prepareStrategies } from '../src/strategies/runner.js';
import { STRATEGIES } from '../src/strategies/registry.js';
import { loadCanonical, unavailableReason, type LoadedCorpus } from './lib/canonical.js';
import { realCorpora, type CorpusSpec } from './lib/corpora.js';
import { freshTokenizer } from './lib/fresh-tokenizer.js';
import type { Benchmark, BenchContext, BenchOutput, Cell, Table } from './lib/results.js';
import { applyAll, freshContext, loadStrategies, runAll, stepsFor } from './lib/tcompact-steps.js';
import { runTiny, type TinyResult, type TinyTask } from './lib/tiny.js';

type Tok = 'o200k_base' | 'heuristic';

interface StrategyRow {
  corpus: string;
  strategy: string;
  /** Strategy code only (`apply`), no token counting; null for presets (their steps are conditional on counts). */
  applyOnly: Throughput | null;
  /** As the pipeline runs it: apply, then recount (exact o200k_base or heuristic), per step. */
  exact: Throughput | null;
  heuristic: Throughput | null;
  tokensBefore: number;
  tokensAfter: number;
}

interface Throughput {
  meanMs: number;
  rme: number | null;
  samples: number;
  messagesPerSec: number;
  mbPerSec: number;
}

function throughput(r: TinyResult | undefined, c: LoadedCorpus): Throughput | null {
  if (!r || r.meanMs === null) return null;
  const s = r.meanMs / 1000;
  return { meanMs: r.meanMs, rme: r.rme, samples: r.samples, messagesPerSec: c.messages / s, mbPerSec: c.canonicalBytes / 1e6 / s };
}

function countAll(transcripts: readonly Transcript[], tok: Tok): number {
  const tokenizer = freshTokenizer(tok);
  let n = 0;
  for (const t of transcripts) n += countTranscript(t, tokenizer).total;
  return n;
}

export const strategiesBench: Benchmark = {
  name: 'strategies',
  entry: import.meta.url,
  title: 'Strategies: messages/s and MB/s per strategy, tokenizer cost shown separately',
  description:
    'Each strategy of the registry (and each preset such as `auto`, run as `tcompact` runs it, with `sanitize` first ' +
    'and last) over every transcript of a corpus, in memory on one core, measured with tinybench. "apply only" is the ' +
    'strategy code alone (any tokenizer call inside a strategy uses the heuristic); "exact" and "heuristic" are `runSteps` as the pipeline calls it: the transcript is counted ' +
    'before and after each step with that tokenizer. Every iteration starts with an empty token cache and a fresh refs ' +
    'sink, so the figures are what one pass over the corpus costs. The "count only" rows are the token counting alone. ' +
    'MB are 10^6 bytes of canonical JSON; corpora are read through src/formats, as `tcompact run` reads them.',
  async run(ctx: BenchContext): Promise<BenchOutput> {
    const loaded = await loadStrategies();
    // A strategy that loads its rules when prepared (redact-secrets) is prepared once, as a worker does before a shard.
    await prepareStrategies(Object.values(STRATEGIES));
    // The LLM strategies (summarize, classify-tangents) wait on a model: their cost is the model's, not measured here.
    const strategies = loaded.strategies.filter((n) => !STRATEGIES[n]?.async);
    const { presets } = loaded;
    const names = [...strategies, ...presets];
    const specs: CorpusSpec[] = ctx.quick
      ? [...realCorpora(true), { name: 'synthetic 1 MB (seed 2)', kind: 'synthetic', seed: 2, bytes: 1_000_000 }]
      : [...realCorpora(false), { name: 'synthetic 8 MB (seed 2)', kind: 'synthetic', seed: 2, bytes: 8_000_000 }];
    const pending: string[] = [];
    if (strategies.length === 0) pending.push('not yet available: the strategy registry is empty');
    if (!presets.includes('auto')) pending.push('not yet available: the `auto` preset is not registered yet');
    const rows: StrategyRow[] = [];
    const countRows: { corpus: string; tokenizer: Tok; t: Throughput | null; tokens: number }[] = [];
    for (const spec of specs) {
      const corpus = await loadCanonical(spec, ctx.tmpDir);
      if (corpus.transcripts.length === 0) {
        pending.push(unavailableReason(corpus));
        continue;
      }
      ctx.log(
        `strategies: ${corpus.name}: ${corpus.transcripts.length} transcripts, ${corpus.messages} messages, ${(corpus.canonicalBytes / 1e6).toFixed(1)} MB`,
      );
      const ts = corpus.transcripts;
      const tasks: TinyTask[] = [
        { name: 'count:o200k_base', fn: () => countAll(ts, 'o200k_base') },
        { name: 'count:heuristic', fn: () => countAll(ts, 'heuristic') },
      ];
      const stepsByName = new Map<string, Record<Tok, PipelineStep[]>>();
      for (const name of names) {
        const steps = { o200k_base: stepsFor([name], 'o200k_base'), heuristic: stepsFor([name], 'heuristic') };
        stepsByName.set(name, steps);
        if (strategies.includes(name)) tasks.push({ name: `${name}:apply`, fn: () => applyAll(ts, steps.heuristic, freshContext('heuristic')) });
        for (const tok of ['o200k_base', 'heuristic'] as const) {
          tasks.push({ name: `${name}:${tok}`, fn: () => runAll(ts, steps[tok], freshContext(tok)) });
        }
      }
      const results = await runTiny(tasks, ctx.quick);
      const get = (n: string) => results.find((r) => r.name === n);
      for (const r of results) if (r.error) pending.push(`${corpus.name}: ${r.name} failed: ${r.error}`);
      const exactTok = getTokenizer('o200k_base');
      const before = ts.reduce((n, t) => n + countTranscript(t, exactTok).total, 0);
      for (const tok of ['o200k_base', 'heuristic'] as const)
        countRows.push({
          corpus: corpus.name,
          tokenizer: tok,
          t: throughput(get(`count:${tok}`), corpus),
          tokens: tok === 'o200k_base' ? before : countAll(ts, 'heuristic'),
        });
      for (const name of names) {
        // One untimed run for the savings figure (exact counts).
        const after = runAll(ts, stepsByName.get(name)!.o200k_base, freshContext('o200k_base')).reduce((n, r) => n + r.tokensAfter, 0);
        rows.push({
          corpus: corpus.name,
          strategy: name,
          applyOnly: throughput(get(`${name}:apply`), corpus),
          exact: throughput(get(`${name}:o200k_base`), corpus),
          heuristic: throughput(get(`${name}:heuristic`), corpus),
          tokensBefore: before,
          tokensAfter: after,
        });
      }
    }
    const mbs = (t: Throughput | null) => (t === null ? null : t.mbPerSec);
    const msgs = (t: Throughput | null) => (t === null ? null : t.messagesPerSec);
    const tables: Table[] = [
      {
        title: 'Per strategy (one core, in memory)',
        columns: ['corpus', 'strategy', 'apply only MB/s', 'exact: MB/s', 'exact: messages/s', 'heuristic: MB/s', 'heuristic: messages/s', 'tokens saved'],
        rows: rows.map((r): Cell[] => [
          r.corpus,
          r.strategy,
          mbs(r.applyOnly),
          mbs(r.exact),
          msgs(r.exact),
          mbs(r.heuristic),
          msgs(r.heuristic),
          r.tokensBefore > 0 ? `${(((r.tokensBefore - r.tokensAfter) / r.tokensBefore) * 100).toFixed(1)}%` : '',
        ]),
        headline: false,
      },
      {
        title: 'Token counting alone (one pass, empty cache)',
        columns: ['corpus', 'tokenizer', 'MB/s', 'messages/s', 'tokens'],
        rows: countRows.map((r): Cell[] => [r.corpus, r.tokenizer, mbs(r.t), msgs(r.t), r.tokens]),
      },
    ];
    return {
      params: { corpora: specs.map((s) => s.name), strategies, presets, tinybench: ctx.quick ? 'quick' : 'full' },
      results: { strategies: rows, counting: countRows },
      tables,
      pending,
    };
  },
};
