import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Message } from '../src/model/message.js';
import type { Transcript } from '../src/model/transcript.js';
import { createDedupTools, dedupTools, rangeSubsumes } from '../src/strategies/dedup-tools.js';
import { DEFAULT_TOOL_HINTS } from '../src/strategies/tool-hints.js';
import type { Strategy } from '../src/strategies/types.js';
import { runMeasured } from './lib/child.js';
import { cliHasCommand, CLI_SOURCES, ensureBuiltCli, runArgs } from './lib/cli.js';
import { syntheticArchive } from './lib/corpora.js';
import { freshContext, pipelineStrategies } from './lib/tcompact-steps.js';
import type { BenchContext, Benchmark, BenchOutput, Cell, Ratio, Table } from './lib/results.js';

/** Files the reads are spread over: each file is one group the pairwise check compares within. */
const FILES = 4;

export type ReadShape = 'mixed' | 'sliding';

/**
 * One transcript with `n` Claude Code `Read` calls spread over a few files, nothing edited in between. `mixed`: random
 * windows and 2% whole-file reads (most earlier reads end up covered, so the pairwise check stops early); `sliding`:
 * 50-line windows moving 10 lines at a time, which overlap but never contain each other (nothing is covered, so the
 * pairwise check compares every pair: its worst case).
 */
export function manyReads(n: number, shape: ReadShape, seed = 1): Transcript {
  let s = seed >>> 0;
  const rand = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296;
  const perFile = new Array<number>(FILES).fill(0);
  const messages: Message[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Study the code base.' },
  ];
  for (let i = 0; i < n; i++) {
    const id = `toolu_${String(i).padStart(6, '0')}`;
    const f = Math.floor(rand() * FILES);
    const file = `/repo/src/file${f}.ts`;
    let args: Record<string, unknown>;
    if (shape === 'sliding') args = { file_path: file, offset: 1 + 10 * perFile[f]++, limit: 50 };
    else if (rand() < 0.02) args = { file_path: file };
    else args = { file_path: file, offset: 1 + Math.floor(rand() * 2000), limit: 10 + Math.floor(rand() * 300) };
    messages.push({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'Read', arguments: JSON.stringify(args) } }] });
    messages.push({ role: 'tool', tool_call_id: id, content: `${file} ${JSON.stringify(args)}` });
  }
  messages.push({ role: 'user', content: 'Now summarize.' }, { role: 'assistant', content: 'Done.' });
  return { id: `reads-${shape}-${n}`, messages };
}

const naiveDedup: Strategy = createDedupTools({ subsumes: { Read: rangeSubsumes(DEFAULT_TOOL_HINTS.Read.range!) } });

/** Median wall ms of `apply` over `runs` runs (at least one), stopping early once `budgetMs` is spent. */
function timeApply(strategy: Strategy, t: Transcript, runs: number, budgetMs: number): { ms: number; output: string } {
  const config = strategy.config.parse({});
  const times: number[] = [];
  let output = '';
  const started = performance.now();
  for (let i = 0; i < runs && (i === 0 || performance.now() - started < budgetMs); i++) {
    const t0 = performance.now();
    const r = strategy.apply(t, config, freshContext('heuristic'));
    times.push(performance.now() - t0);
    output = JSON.stringify(r.transcript);
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor((times.length - 1) / 2)], output };
}

interface SubsumptionRow {
  shape: ReadShape;
  reads: number;
  sweepMs: number;
  naiveMs: number | null;
  removed: number;
  identical: boolean | null;
}

interface SizeRow {
  archiveMB: number;
  wallMs: number | null;
  mbPerSec: number | null;
  peakRssMB: number | null;
}

export const growthBench: Benchmark = {
  name: 'growth',
  entry: import.meta.url,
  alsoRuns: CLI_SOURCES,
  title: 'Growth: dedup-tools subsumption vs reads per transcript; time and memory vs archive size',
  description:
    '(1) `dedup-tools` on one transcript with N Claude Code `Read` calls over 4 files, nothing edited in between, in two ' +
    'shapes: "mixed" (random windows, 2% whole-file reads: most earlier reads end up covered) and "sliding" (50-line ' +
    'windows moving by 10 lines: they overlap but never contain each other, the pairwise worst case). The built-in line-range rule (group by path, sort by start, sweep with a ' +
    'Fenwick tree over ends) against the same rule given as a pairwise predicate (`createDedupTools({ subsumes })`, ' +
    'O(n^2) per path); both must remove exactly the same calls. Time is the median of `apply` (no token counting). ' +
    '(2) `tcompact run --strategy auto --workers 2` (exact counts) on synthetic archives of growing size: wall time and ' +
    'peak RSS (GNU time), which should stay flat as the archive grows.',
  async run(ctx: BenchContext): Promise<BenchOutput> {
    const pending: string[] = [];
    const sizes = [10, 100, 1_000, 10_000];
    const naiveLimit = ctx.quick ? 1_000 : 10_000;
    const rows: SubsumptionRow[] = [];
    for (const shape of ['mixed', 'sliding'] as const) {
      for (const n of sizes) {
        ctx.log(`growth: dedup-tools with ${n} reads (${shape})`);
        const t = manyReads(n, shape);
        const runs = n <= 1000 ? (ctx.quick ? 3 : 9) : 3;
        const sweep = timeApply(dedupTools as Strategy, t, runs, 5_000);
        const naive = n <= naiveLimit ? timeApply(naiveDedup, t, n >= 10_000 ? 1 : runs, 5_000) : null;
        const removed = t.messages.length - (JSON.parse(sweep.output) as Transcript).messages.length;
        rows.push({
          shape,
          reads: n,
          sweepMs: sweep.ms,
          naiveMs: naive?.ms ?? null,
          removed: removed / 2,
          identical: naive ? naive.output === sweep.output : null,
        });
      }
    }
    if (ctx.quick) pending.push('the pairwise check with 10,000 reads runs in the full benchmark only (tens of seconds in its worst case)');

    const archiveSizes = ctx.quick ? [20_000_000, 100_000_000] : [100_000_000, 1_000_000_000];
    const sizeRows: SizeRow[] = [];
    let label = 'auto';
    await ensureBuiltCli(ctx.log);
    if (!(await cliHasCommand('run'))) {
      pending.push('not yet available: `tcompact run` is not in the built CLI; time and peak memory vs archive size need it');
      for (const b of archiveSizes) sizeRows.push({ archiveMB: b / 1e6, wallMs: null, mbPerSec: null, peakRssMB: null });
    } else {
      const chosen = await pipelineStrategies();
      label = chosen.label;
      if (chosen.note) pending.push(`not yet available: ${chosen.note}`);
      for (const bytes of archiveSizes) {
        ctx.log(`growth: tcompact run on ${bytes / 1e6} MB`);
        const file = await syntheticArchive(ctx.tmpDir, 1, bytes);
        const out = join(ctx.tmpDir, 'growth-out');
        rmSync(out, { recursive: true, force: true });
        const r = await runMeasured(process.execPath, runArgs([file], out, { workers: 2, tokenizer: 'o200k_base', strategies: chosen.strategies }), ctx.tmpDir);
        rmSync(out, { recursive: true, force: true });
        if (r.exitCode !== 0) {
          pending.push(`tcompact run on ${bytes / 1e6} MB failed (exit ${r.exitCode}): ${r.stderr.slice(0, 500)}`);
          sizeRows.push({ archiveMB: bytes / 1e6, wallMs: null, mbPerSec: null, peakRssMB: null });
          continue;
        }
        sizeRows.push({ archiveMB: bytes / 1e6, wallMs: r.wallMs, mbPerSec: bytes / 1e6 / (r.wallMs / 1000), peakRssMB: r.peakRssMB });
      }
    }
    const tables: Table[] = [
      {
        title: 'dedup-tools subsumption: sorted sweep vs pairwise (ms per transcript)',
        columns: ['reads', 'Read calls', 'sweep ms', 'pairwise ms', 'pairwise / sweep', 'calls removed', 'same output'],
        rows: rows.map((r): Cell[] => [
          r.shape,
          r.reads,
          r.sweepMs,
          r.naiveMs,
          r.naiveMs === null ? null : `${(r.naiveMs / r.sweepMs).toFixed(1)}x`,
          r.removed,
          r.identical === null ? 'n/a' : r.identical ? 'yes' : 'NO',
        ]),
        headline: true,
      },
      {
        title: `tcompact run (${label}, exact, 2 workers) vs archive size`,
        columns: ['archive MB', 'wall s', 'MB/s', 'peak RSS MB'],
        rows: sizeRows.map((r): Cell[] => [r.archiveMB, r.wallMs === null ? null : r.wallMs / 1000, r.mbPerSec, r.peakRssMB]),
        headline: true,
      },
    ];
    const largest = sizeRows.at(-1);
    const ratios: Ratio[] = [
      {
        name: `peak RSS of tcompact run on the ${largest?.archiveMB ?? '?'} MB archive (under 400 MB on 1 GB)`,
        value: largest?.peakRssMB ?? null,
        unit: ' MB',
        target: '< 400 MB',
        met: largest?.peakRssMB == null ? null : largest.peakRssMB < 400,
      },
    ];
    const sweepVsNaive = rows.filter((r) => r.shape === 'sliding' && r.naiveMs !== null).at(-1);
    if (sweepVsNaive)
      ratios.push({ name: `dedup-tools pairwise / sweep, ${sweepVsNaive.reads} sliding reads`, value: sweepVsNaive.naiveMs! / sweepVsNaive.sweepMs });
    return {
      params: { readCounts: sizes, files: FILES, naiveLimit, archiveSizes },
      ratios,
      results: { subsumption: rows, archive: sizeRows },
      tables,
      pending,
    };
  },
};
