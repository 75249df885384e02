/**
 * `npm run bench` (full) and `npm run bench -- --quick` (CI-sized, under two minutes on a 2-core machine).
 * `--only a,b` runs some benchmarks; `--profile` also writes CPU profiles of a 2-worker heuristic run (main thread and
 * each worker) to bench/results/profiles/; `--e2e-mb N` sets the size of end-to-end's archives (a loaded machine); the summaries are always rebuilt from every results file present.
 * `--check` runs nothing: it exits 1 when a committed result was measured on other sources than the tree's (or names none).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { checkpointSpansBench } from './checkpoint-spans.js';
import { distributedBench } from './distributed.js';
import { endToEndBench } from './end-to-end.js';
import { frontierBench } from './frontier.js';
import { growthBench } from './growth.js';
import { htmlReportBench } from './html-report.js';
import { ensureBuiltCli } from './lib/cli.js';
import { staleResults } from './lib/fresh-results.js';
import { ROOT, RESULTS_DIR, TMP_DIR } from './lib/paths.js';
import { readResults, renderReadmeBlock, renderResultsReadme, replaceReadmeBlock, writeResult, type Benchmark } from './lib/results.js';
import { peersBench } from './peers.js';
import { strategiesBench } from './strategies.js';
import { tokenizerBench } from './tokenizer.js';

const BENCHMARKS: readonly Benchmark[] = [
  endToEndBench,
  strategiesBench,
  peersBench,
  tokenizerBench,
  growthBench,
  htmlReportBench,
  distributedBench,
  frontierBench,
  checkpointSpansBench,
];
const ORDER = BENCHMARKS.map((b) => b.name);

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      profile: { type: 'boolean', default: false },
      'e2e-mb': { type: 'string' },
      check: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(`usage: npm run bench [-- --quick] [-- --only ${ORDER.join(',')}] [-- --profile] [-- --e2e-mb N] [-- --check]`);
    return 0;
  }
  if (values.check) return check();
  const only = values.only?.split(',').map((s) => s.trim());
  const unknown = only?.filter((n) => !ORDER.includes(n)) ?? [];
  if (unknown.length > 0) {
    console.error(`unknown benchmark(s): ${unknown.join(', ')} (known: ${ORDER.join(', ')})`);
    return 2;
  }
  const e2eMb = values['e2e-mb'] === undefined ? undefined : Number(values['e2e-mb']);
  if (e2eMb !== undefined && !(Number.isInteger(e2eMb) && e2eMb > 0)) {
    console.error(`--e2e-mb must be a positive integer (MB), got ${values['e2e-mb']}`);
    return 2;
  }
  mkdirSync(TMP_DIR, { recursive: true });
  const mode = values.quick ? 'quick' : 'full';
  // A quick run checks that every benchmark still runs; its figures go to bench/results/quick/ (not committed), so they
  // never replace the full run's figures that the docs link to.
  const resultsDir = values.quick ? join(RESULTS_DIR, 'quick') : RESULTS_DIR;
  mkdirSync(resultsDir, { recursive: true });
  const started = performance.now();
  // Once, up front, so no benchmark's time includes a build (after `npm ci` dist/ is already current).
  await ensureBuiltCli((m) => console.log(m));
  const buildSeconds = (performance.now() - started) / 1000;
  if (buildSeconds > 1) console.log(`build took ${buildSeconds.toFixed(1)}s`);
  let failed = 0;
  for (const bench of BENCHMARKS) {
    if (only && !only.includes(bench.name)) continue;
    const t0 = performance.now();
    const log = (m: string) => console.log(`[${((performance.now() - started) / 1000).toFixed(1)}s] ${m}`);
    log(`${bench.name}: start (${mode})`);
    try {
      const output = await bench.run({
        quick: values.quick,
        tmpDir: TMP_DIR,
        profile: values.profile,
        e2eBytes: e2eMb === undefined ? undefined : e2eMb * 1e6,
        log,
      });
      writeResult(resultsDir, bench, mode, output, performance.now() - t0);
      log(`${bench.name}: done in ${((performance.now() - t0) / 1000).toFixed(1)}s`);
    } catch (err) {
      failed++;
      console.error(`${bench.name} failed:`, err);
    }
  }
  const files = readResults(resultsDir, ORDER);
  writeFileSync(join(resultsDir, 'README.md'), renderResultsReadme(files));
  if (!values.quick) {
    const summaryPath = join(ROOT, 'docs', 'performance.md');
    // Re-read just before writing: people edit the page too; only the block between the markers changes.
    const updated = replaceReadmeBlock(readFileSync(summaryPath, 'utf8'), renderReadmeBlock(files));
    if (updated !== null) writeFileSync(summaryPath, updated);
    else console.warn('docs/performance.md has no bench-summary markers; only bench/results/README.md was updated');
  }
  console.log(`bench: ${mode} run finished in ${((performance.now() - started) / 1000).toFixed(1)}s; results in ${resultsDir}`);
  return failed > 0 ? 1 : 0;
}

/** `--check`: every committed result names the hash of the sources it measured, and they hash the same now. */
function check(): number {
  const stale = staleResults(ROOT, RESULTS_DIR, ORDER);
  for (const line of stale) console.error(line);
  if (stale.length === 0) {
    console.log(`bench: the ${ORDER.length} results in bench/results were measured on the sources as they are`);
    return 0;
  }
  console.error(`bench: ${stale.length} stale result(s); refresh on a quiet machine with \`npm run bench -- --only NAME\` (or \`npm run bench\`) and commit`);
  return 1;
}

process.exitCode = await main();
