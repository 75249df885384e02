import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { runMeasured, type ChildRun } from './lib/child.js';
import { cliHasCommand, CLI_SOURCES, ensureBuiltCli, runArgs, type RunOptions } from './lib/cli.js';
import { realTextArchive, syntheticArchive } from './lib/corpora.js';
import { BUNDLED, RESULTS_DIR, ROOT } from './lib/paths.js';
import { e2eRatios } from './lib/e2e-ratios.js';
import { rangeCell, rangeText, type E2eRow } from './lib/e2e-row.js';
import { summarizeProfile } from './lib/profile-summary.js';
import { roundSchedule, type RoundPlan, type Rounds } from './lib/rounds.js';
import { spreadOf, type Spread } from './lib/spread.js';
import { pipelineStrategies } from './lib/tcompact-steps.js';
import type { BenchContext, Benchmark, BenchOutput, Cell, Ratio, Table } from './lib/results.js';

const BASELINES = join(ROOT, 'bench', 'baselines');
export const PROFILES_DIR = join(RESULTS_DIR, 'profiles');

interface Variant {
  name: string;
  kind: 'read' | 'json' | 'tokenize' | 'secrets' | 'pipeline';
  /** For kind 'pipeline': strategies run before the chosen ones (`redact-secrets`). */
  before?: readonly string[];
  /** For kind 'tokenize': the engine counting. */
  engine?: 'gpt-tokenizer' | 'tcompact';
  pipeline?: Omit<RunOptions, 'strategies'>;
}

const READ: Variant = { name: 'read the file only', kind: 'read' };
const JSON_A: Variant = { name: 'baseline (a): readline + JSON.parse + JSON.stringify, 1 core', kind: 'json' };
const TOKENIZE_B: Variant = { name: 'baseline (b): gpt-tokenizer alone, every text field, 1 core', kind: 'tokenize', engine: 'gpt-tokenizer' };
const TOKENIZE_C: Variant = {
  name: "baseline (c): tcompact's engine (the default) alone, every text field, 1 core",
  kind: 'tokenize',
  engine: 'tcompact',
};

/** The secret scan alone (bench/baselines/secret-scan.mjs): what masking or redacting costs on every text field. */
const SECRET_SCAN: Variant = { name: 'the secret scan alone, every text field, 1 core', kind: 'secrets' };

/** A pipeline run with `redact-secrets` before the chosen strategies: against the same run without, the scan's cost in a run. */
function redacting(label: string): Variant {
  return { ...pipeline(label, 2, 'o200k_base'), name: `tcompact run, redact-secrets + ${label}, exact, --workers 2`, before: ['redact-secrets'] };
}

function pipeline(label: string, workers: number, tokenizer: RunOptions['tokenizer'], refs = true): Variant {
  return {
    name: `tcompact run, ${label}, ${tokenizer === 'heuristic' ? 'heuristic' : 'exact'}, --workers ${workers}${refs ? '' : ', --no-refs'}`,
    kind: 'pipeline',
    pipeline: { workers, tokenizer, refs },
  };
}

/** The variants of one archive and the groups a ratio pairs round by round (see {@link roundSchedule}). */
type ArchivePlan = RoundPlan<Variant>;

/** Every variant, for the main synthetic archive. */
function fullPlan(label: string): ArchivePlan {
  const heuristic = pipeline(label, 2, 'heuristic');
  const noRefs = pipeline(label, 2, 'heuristic', false);
  return {
    variants: [READ, JSON_A, TOKENIZE_B, TOKENIZE_C, pipeline(label, 1, 'o200k_base'), pipeline(label, 2, 'o200k_base'), heuristic, noRefs],
    // Reading the file first, in every round, puts it in the page cache before the first timed run of the others.
    paired: [[READ], [JSON_A, heuristic, noRefs]],
    differences: [heuristic, noRefs],
  };
}

/**
 * The real-text archive: what exact counting costs on agent text, and the heuristic run with and without the side
 * store against the JSON round trip on text whose shapes are the real ones.
 */
function realTextPlan(label: string): ArchivePlan {
  const exact = pipeline(label, 2, 'o200k_base');
  const heuristic = pipeline(label, 2, 'heuristic');
  const noRefs = pipeline(label, 2, 'heuristic', false);
  return {
    variants: [JSON_A, TOKENIZE_B, TOKENIZE_C, SECRET_SCAN, exact, heuristic, noRefs, redacting(label)],
    paired: [
      [JSON_A, heuristic, noRefs],
      [TOKENIZE_C, exact],
    ],
    differences: [heuristic, noRefs],
  };
}

/**
 * The tool-heavy synthetic archive (about 130 messages and 78 tool results per transcript, most of them short): the
 * heuristic run with and without the side store against the JSON round trip, where per-message and per-result work
 * weighs more per MB.
 */
function toolHeavyPlan(label: string): ArchivePlan {
  const heuristic = pipeline(label, 2, 'heuristic');
  const noRefs = pipeline(label, 2, 'heuristic', false);
  return { variants: [READ, JSON_A, heuristic, noRefs], paired: [[READ], [JSON_A, heuristic, noRefs]], differences: [heuristic, noRefs] };
}

/** A 10 KB session: runs on it cost what a run costs whatever its input. */
const START_FILE = join(BUNDLED, 'claude-code', 'short.jsonl');

/**
 * The synthetic archive's pipeline runs and baseline (a), on {@link START_FILE}: module loading in the main thread and
 * in each worker, thread start, the final files and pages, which the per-MB figures of a smaller archive carry more
 * of. Cheap, so every round runs them all: the tool-heavy ratio less the start reads their medians.
 */
function startPlan(label: string): ArchivePlan {
  const variants = [JSON_A, pipeline(label, 1, 'o200k_base'), pipeline(label, 2, 'o200k_base'), pipeline(label, 2, 'heuristic')];
  return { variants, paired: [variants] };
}

/** A new user's first run: `tcompact run --workers 2` against the one-core baselines. */
function firstTryPlan(label: string): ArchivePlan {
  return { variants: [JSON_A, TOKENIZE_B, pipeline(label, 2, 'o200k_base'), pipeline(label, 2, 'heuristic')], paired: [] };
}

const range = (s: Spread): [number, number] => [s.min, s.max];

async function runVariant(
  v: Variant,
  strategies: readonly string[],
  file: string,
  ctx: BenchContext,
  outDir: string,
  nodeArgs: readonly string[] = [],
): Promise<{ run: ChildRun; extra: Record<string, number> }> {
  rmSync(outDir, { recursive: true, force: true });
  let run: ChildRun;
  if (v.kind === 'read') run = await runMeasured(process.execPath, [join(BASELINES, 'read-only.mjs'), file], ctx.tmpDir);
  else if (v.kind === 'json') run = await runMeasured(process.execPath, [join(BASELINES, 'json-roundtrip.mjs'), file, `${outDir}.jsonl`], ctx.tmpDir);
  else if (v.kind === 'tokenize') run = await runMeasured(process.execPath, [join(BASELINES, 'tokenize-only.mjs'), file, v.engine!], ctx.tmpDir);
  else if (v.kind === 'secrets') run = await runMeasured(process.execPath, [join(BASELINES, 'secret-scan.mjs'), file], ctx.tmpDir);
  else
    run = await runMeasured(
      process.execPath,
      [...nodeArgs, ...runArgs([file], outDir, { ...v.pipeline!, strategies: [...(v.before ?? []), ...strategies] })],
      ctx.tmpDir,
    );
  rmSync(`${outDir}.jsonl`, { force: true });
  if (run.exitCode !== 0) throw new Error(`${v.name} exited with ${run.exitCode}: ${run.stderr.slice(0, 2000)}`);
  const extra: Record<string, number> = {};
  if (v.kind === 'tokenize') {
    const out = JSON.parse(run.stdout) as { tokens: number; countMs: number };
    extra.tokens = out.tokens;
    extra.countMs = out.countMs;
  }
  if (v.kind === 'secrets') {
    const out = JSON.parse(run.stdout) as { secrets: number; scanMs: number };
    extra.secrets = out.secrets;
    extra.scanMs = out.scanMs;
  }
  if (v.kind === 'pipeline') {
    const reportPath = join(outDir, 'report.json');
    if (existsSync(reportPath)) {
      const report = JSON.parse(readFileSync(reportPath, 'utf8')) as { tokens?: { before?: number; saved?: number }; lines?: { failed?: number } };
      if (typeof report.tokens?.before === 'number') extra.tokens = report.tokens.before;
      if (typeof report.tokens?.saved === 'number') extra.tokensSaved = report.tokens.saved;
      if (typeof report.lines?.failed === 'number') extra.failedLines = report.lines.failed;
    }
    const refsPath = join(outDir, 'refs.jsonl');
    if (existsSync(refsPath)) extra.refsBytes = statSync(refsPath).size;
  }
  return { run, extra };
}

interface ArchiveRun {
  title: string;
  rows: E2eRow[];
  pending: string[];
  rssMethod: string;
}

/**
 * Measures the variants of one archive in rounds (see {@link roundSchedule}): each round runs every variant it holds
 * once, so a load change on a shared machine spreads over all of them instead of hitting one; each row is the median
 * of its rounds, with their min-max.
 */
async function measureArchive(
  file: string,
  mb: number,
  plan: ArchivePlan,
  strategies: readonly string[],
  rounds: Rounds,
  ctx: BenchContext,
  hasRun: boolean,
): Promise<ArchiveRun> {
  const { variants } = plan;
  const pending: string[] = [];
  const walls = variants.map((): number[] => []);
  const rss = variants.map((): number[] => []);
  const cpu = variants.map((): (number | null)[] => []);
  const countMs = variants.map((): number[] => []);
  const extras = variants.map((): Record<string, number> => ({}));
  const failures = variants.map((): string | undefined => undefined);
  let rssMethod = 'none';
  const outDir = join(ctx.tmpDir, 'e2e-out');
  const schedule = roundSchedule(plan, rounds);
  for (const [i, round] of schedule.entries()) {
    for (const v of round) {
      const k = variants.indexOf(v);
      if (failures[k] !== undefined || (v.kind === 'pipeline' && !hasRun)) continue;
      const runs = schedule.filter((r) => r.includes(v)).length;
      ctx.log(`end-to-end: ${v.name} (${walls[k].length + 1}/${runs}, round ${i + 1}/${schedule.length})`);
      try {
        const r = await runVariant(v, strategies, file, ctx, outDir);
        walls[k].push(r.run.wallMs);
        if (r.run.peakRssMB !== null) rss[k].push(r.run.peakRssMB);
        cpu[k].push(r.run.cpuMs);
        rssMethod = r.run.rssMethod;
        if (r.extra.countMs !== undefined) countMs[k].push(r.extra.countMs);
        extras[k] = r.extra;
      } catch (err) {
        // One variant failing (e.g. a half-edited tree) must not cost the other rows.
        failures[k] = (err as Error).message;
      }
    }
  }
  rmSync(outDir, { recursive: true, force: true });
  const rows = variants.map((v, k): E2eRow => {
    if (v.kind === 'pipeline' && !hasRun) return { variant: v.name, wallMs: null, mbPerSec: null, peakRssMB: null, note: 'not yet available' };
    if (failures[k] !== undefined) {
      pending.push(`${v.name} failed: ${failures[k]!.slice(0, 500)}`);
      return { variant: v.name, wallMs: null, mbPerSec: null, peakRssMB: null, note: 'failed, see pending' };
    }
    const wall = spreadOf(walls[k])!;
    const cpuMs = cpu[k].every((c) => c !== null) ? spreadOf(cpu[k] as number[]) : null;
    const row: E2eRow = {
      variant: v.name,
      wallMs: wall.median,
      mbPerSec: mb / (wall.median / 1000),
      cpuMsPerMB: cpuMs === null ? null : cpuMs.median / mb,
      peakRssMB: rss[k].length > 0 ? Math.max(...rss[k]) : null,
      rounds: wall.runs,
      wallMsRange: range(wall),
    };
    if (cpuMs !== null) row.cpuMsPerMBRange = [cpuMs.min / mb, cpuMs.max / mb];
    const count = spreadOf(countMs[k]);
    if (count !== null) {
      row.tokenizerOnlyMbPerSec = mb / (count.median / 1000);
      row.tokenizerOnlyMbPerSecRange = [mb / (count.max / 1000), mb / (count.min / 1000)];
    }
    row.byRound = { wallMs: walls[k], cpuMs: cpu[k], ...(countMs[k].length > 0 ? { countMs: countMs[k] } : {}) };
    if (extras[k].tokens !== undefined) row.tokens = extras[k].tokens;
    if (extras[k].tokensSaved !== undefined) row.tokensSaved = extras[k].tokensSaved;
    if (extras[k].refsBytes !== undefined) row.refsBytes = extras[k].refsBytes;
    if (extras[k].failedLines) row.note = `${extras[k].failedLines} lines failed`;
    return row;
  });
  return { title: '', rows, pending, rssMethod };
}

function rowTable(title: string, rows: readonly E2eRow[], notes: string[], headline: boolean): Table {
  return {
    title,
    columns: ['variant', 'wall s', 'MB/s', 'CPU ms/MB', 'peak RSS MB', 'tokens', 'tokens saved', 'refs.jsonl MB'],
    rows: rows.map((r): Cell[] => [
      r.variant + (r.note ? ` (${r.note})` : ''),
      rangeCell(r.wallMs, r.wallMsRange, r.rounds, 1 / 1000),
      r.mbPerSec === null
        ? null
        : r.tokenizerOnlyMbPerSec !== undefined
          ? `${r.mbPerSec.toFixed(1)} (tokenizer only: ${rangeText(r.tokenizerOnlyMbPerSec, r.tokenizerOnlyMbPerSecRange, r.rounds)})`
          : r.mbPerSec,
      rangeCell(r.cpuMsPerMB, r.cpuMsPerMBRange, r.rounds),
      r.peakRssMB,
      r.tokens ?? '',
      r.tokensSaved ?? '',
      r.refsBytes === undefined ? '' : r.refsBytes / 1e6,
    ]),
    notes,
    headline,
  };
}

/**
 * What the secret scan costs: alone per MB, and in a run as `redact-secrets` before the chosen strategies, against the
 * same run without it (a run without `redact-secrets` scans only its report, not the transcripts).
 */
function secretScanNote(rows: readonly E2eRow[], label: string): string {
  const cpu = (name: string) => rows.find((r) => r.variant === name)?.cpuMsPerMB ?? null;
  const alone = cpu(SECRET_SCAN.name);
  const plain = cpu(pipeline(label, 2, 'o200k_base').name);
  const redacted = cpu(redacting(label).name);
  const share = plain === null || redacted === null ? 'n/a' : `${(((redacted - plain) / plain) * 100).toFixed(1)}%`;
  return `Secret scan: ${alone === null ? 'n/a' : alone.toFixed(0)} CPU ms/MB alone (reading and parsing included); redact-secrets adds ${share} CPU per MB to the exact run with 2 workers.`;
}

/** The share `part` is of `whole`, as a percentage cell; empty when either is unknown. */
function share(part: number | null, whole: number | null | undefined): Cell {
  return part === null || whole === null || whole === undefined ? '' : `${((part / whole) * 100).toFixed(1)}%`;
}

/**
 * The start of a run in CPU ms, and what it adds per MB to the rows of the same command on the main synthetic archive
 * and on the tool-heavy one: which share of those rows is start rather than work that grows with the input.
 */
function startTable(start: ArchiveRun, startMb: number, syn: ArchiveRun, synMb: number, th: ArchiveRun, thMb: number, rounds: string): Table {
  const cpuOf = (rows: readonly E2eRow[], variant: string) => rows.find((x) => x.variant === variant)?.cpuMsPerMB;
  return {
    title: `The start of a run: the same commands on a ${(startMb * 1000).toFixed(0)} KB session (${rounds})`,
    columns: [
      'variant',
      'wall s',
      'CPU ms',
      `CPU ms/MB it adds to a ${synMb} MB run`,
      `share of the ${synMb} MB synthetic row's CPU`,
      `CPU ms/MB it adds to a ${thMb} MB run`,
      `share of the ${thMb} MB tool-heavy row's CPU`,
    ],
    rows: start.rows.map((r): Cell[] => {
      const cpuMs = r.cpuMsPerMB == null ? null : r.cpuMsPerMB * startMb;
      const perSynMb = cpuMs === null ? null : cpuMs / synMb;
      const perThMb = cpuMs === null ? null : cpuMs / thMb;
      return [
        r.variant + (r.note ? ` (${r.note})` : ''),
        rangeCell(r.wallMs, r.wallMsRange, r.rounds, 1 / 1000),
        rangeCell(r.cpuMsPerMB, r.cpuMsPerMBRange, r.rounds, startMb),
        perSynMb,
        share(perSynMb, cpuOf(syn.rows, r.variant)),
        perThMb,
        share(perThMb, cpuOf(th.rows, r.variant)),
      ];
    }),
    notes: [
      'Loading the modules of the main thread and of each worker, starting the threads and writing the final files and pages cost the same whatever the input; the rest of a run grows with it.',
      'A share is empty where that archive has no row of the same command.',
    ],
    headline: true,
  };
}

/**
 * One extra heuristic run with 2 workers under `node --cpu-prof` (Piscina's workers inherit it): the profiles of the
 * main thread and of each worker go to bench/results/profiles/, their top self-time functions into tables.
 */
async function profileRun(file: string, strategies: readonly string[], label: string, ctx: BenchContext): Promise<Table[]> {
  rmSync(PROFILES_DIR, { recursive: true, force: true });
  mkdirSync(PROFILES_DIR, { recursive: true });
  const raw = join(ctx.tmpDir, 'cpu-prof');
  rmSync(raw, { recursive: true, force: true });
  const v = pipeline(label, 2, 'heuristic');
  ctx.log(`end-to-end: ${v.name} under --cpu-prof`);
  await runVariant(v, strategies, file, ctx, join(ctx.tmpDir, 'e2e-out'), ['--cpu-prof', '--cpu-prof-dir', raw]);
  rmSync(join(ctx.tmpDir, 'e2e-out'), { recursive: true, force: true });
  // Node names them CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile; thread 0 is the main thread.
  const files = readdirSync(raw)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => ({ f, thread: Number(f.split('.').at(-3)) }))
    .sort((a, b) => a.thread - b.thread);
  const tables: Table[] = [];
  for (const { f, thread } of files) {
    const name = thread === 0 ? 'main' : `worker-${thread}`;
    renameSync(join(raw, f), join(PROFILES_DIR, `${name}.cpuprofile`));
    const s = summarizeProfile(join(PROFILES_DIR, `${name}.cpuprofile`), 12);
    tables.push({
      title: `Profile, ${name} thread: top self time (${v.name}; ${(s.totalMs / 1000).toFixed(1)} s, busy ${(s.busyMs / 1000).toFixed(1)} s)`,
      columns: ['function', 'self ms', 'share of wall'],
      rows: s.top.map((t): Cell[] => [t.fn, t.ms, `${(t.share * 100).toFixed(1)}%`]),
      notes: [`bench/results/profiles/${name}.cpuprofile (open in Chrome DevTools or speedscope).`],
    });
  }
  rmSync(raw, { recursive: true, force: true });
  return tables;
}

export const endToEndBench: Benchmark = {
  name: 'end-to-end',
  entry: import.meta.url,
  alsoRuns: [...CLI_SOURCES, 'bench/baselines/read-only.mjs', 'bench/baselines/json-roundtrip.mjs', 'bench/baselines/tokenize-only.mjs'],
  title: 'End-to-end: tcompact run vs the one-core limits, 1 vs 2 workers, synthetic and real text',
  description:
    'Throughput of the built CLI (`node dist/src/cli/bin.js run FILE --out DIR --strategy auto --workers N --tokenizer T ' +
    '--quiet`) measured in the same run as: reading the file only; baseline (a), a plain single-threaded Node script ' +
    'doing readline + JSON.parse + JSON.stringify per line and writing the result (the practical limit of one core for a ' +
    'JSONL pass); baseline (b), gpt-tokenizer o200k_base alone counting every text field on one core with no cache, timed ' +
    'inside the counting calls only; baseline (c), the same with the default engine of tcompact (its own count-only BPE over the gpt-tokenizer rank table; how close ' +
    'the pipeline comes to the two-core limit of its own tokenizer). Four archives: a synthetic one (datasets/generate.ts); ' +
    'a real-text one of the same size (datasets/generate-real-text.ts: the shapes of the shared real transcripts, texts ' +
    'spliced from segments of different real texts, so nothing of 64+ characters repeats and the token cache does not ' +
    'help); a 100 MB tool-heavy synthetic one (the same generator, about 130 messages and 78 tool results per ' +
    'transcript, most of them short); and a 100 MB synthetic one run as a new user would (`--workers 2` only; the main synthetic archive itself when ' +
    '`--e2e-mb 100` sets that size). The pipeline runs and baseline (a) are also timed on a 10 KB session: their start, which costs the same ' +
    'whatever the input, and what it adds per MB to the synthetic and tool-heavy rows. Every command runs as its own ' +
    'process. Variants run in rounds (each round runs each of its variants once, odd rounds in reverse order): in a full run ' +
    'the rows a ratio pairs (baseline (a) and the heuristic run with and without refs on the three large archives, ' +
    'baseline (c) and the exact 2-worker run on real text, every start run; and reading the file, first, so it is in the ' +
    'page cache) run in 5 rounds, back to back with their pair, the heuristic runs with and without refs go on to 9 ' +
    '(the side store is their difference, a few ms per MB out of sixty, with the noise of both runs), ' +
    'and the others run in 3; a quick run does one. Each row is the median of its rounds, shown with their min-max; each ratio ' +
    'is the median of its per-round values (round i of one row against round i of the other; the side store is the ' +
    'with-refs run less the --no-refs run of the same round), shown with their min-max. Wall time is spawn to exit (start-up included), the file ' +
    "is in the page cache, peak RSS is GNU time's maximum resident set size of the process (Piscina workers are threads, " +
    "so they are included), CPU ms/MB is GNU time's user + system time of the process (every thread) per input MB, the " +
    'figure that holds when other jobs share the cores. MB are 10^6 bytes of input. `npm run bench -- --profile` adds a profiled heuristic run.',
  async run(ctx: BenchContext): Promise<BenchOutput> {
    const bytes = ctx.e2eBytes ?? (ctx.quick ? 50_000_000 : 300_000_000);
    const firstTryBytes = ctx.quick ? 30_000_000 : 100_000_000;
    const toolHeavyBytes = ctx.quick ? 20_000_000 : 100_000_000;
    // The rows the must-show ratios read (and their start) run 5 times; the others 3, as baseline (b) on real text
    // alone takes 1.5 minutes a run. A quick run's figures are checks, not results: one round.
    const rounds: Rounds = ctx.quick ? { all: 1, paired: 1 } : { all: 3, paired: 5, differences: 9 };
    // Wall figures only count on an idle machine: the load when measuring starts goes beside them (the end's is in machine).
    const loadAverage1mAtStart = Math.round(loadavg()[0] * 100) / 100;
    await ensureBuiltCli(ctx.log);
    const hasRun = await cliHasCommand('run');
    const chosen = await pipelineStrategies();
    const pending: string[] = chosen.note ? [`not yet available: ${chosen.note}`] : [];
    if (!hasRun) pending.push('not yet available: `tcompact run` is not in the built CLI; the pipeline rows and ratios are empty until it lands.');
    const medianOf =
      rounds.paired === 1
        ? 'one run each'
        : `median and min-max of ${rounds.all} runs, ${rounds.paired} for the rows a ratio pairs, ${rounds.differences ?? rounds.paired} for the heuristic runs with and without refs`;
    const allRounds = rounds.all === 1 ? 'one run each' : `median and min-max of ${rounds.all} runs`;
    const startRounds = rounds.paired === 1 ? 'one run each' : `median and min-max of ${rounds.paired} runs`;

    ctx.log(`end-to-end: synthetic archive of ${bytes / 1e6} MB`);
    const synthetic = await syntheticArchive(ctx.tmpDir, 1, bytes);
    const syn = await measureArchive(synthetic, bytes / 1e6, fullPlan(chosen.label), chosen.strategies, rounds, ctx, hasRun);
    ctx.log(`end-to-end: real-text archive of ~${bytes / 1e6} MB`);
    const real = await realTextArchive(ctx.tmpDir, 1, bytes);
    const rt = await measureArchive(real.file, real.bytes / 1e6, realTextPlan(chosen.label), chosen.strategies, rounds, ctx, hasRun);
    // When the main archive already has the new-user run's size, its rows are that run (same command lines).
    const sameSize = firstTryBytes === bytes;
    const small = sameSize ? synthetic : await syntheticArchive(ctx.tmpDir, 2, firstTryBytes);
    if (!sameSize) ctx.log(`end-to-end: a new user's run on a ${firstTryBytes / 1e6} MB synthetic archive`);
    const first = sameSize
      ? { ...syn, pending: [], rows: firstTryPlan(chosen.label).variants.map((v) => syn.rows.find((r) => r.variant === v.name)!) }
      : await measureArchive(small, firstTryBytes / 1e6, firstTryPlan(chosen.label), chosen.strategies, rounds, ctx, hasRun);
    ctx.log(`end-to-end: tool-heavy synthetic archive of ${toolHeavyBytes / 1e6} MB`);
    const toolHeavy = await syntheticArchive(ctx.tmpDir, 1, toolHeavyBytes, 'tool-heavy');
    const th = await measureArchive(toolHeavy, toolHeavyBytes / 1e6, toolHeavyPlan(chosen.label), chosen.strategies, rounds, ctx, hasRun);
    ctx.log('end-to-end: the start of a run, on a 10 KB session');
    const startMb = statSync(START_FILE).size / 1e6;
    const start = await measureArchive(START_FILE, startMb, startPlan(chosen.label), chosen.strategies, rounds, ctx, hasRun);
    pending.push(...syn.pending, ...rt.pending, ...th.pending, ...first.pending, ...start.pending);

    const s = e2eRatios(syn.rows, bytes / 1e6);
    const r = e2eRatios(rt.rows, real.bytes / 1e6);
    const f = e2eRatios(first.rows, firstTryBytes / 1e6);
    const t = e2eRatios(th.rows, toolHeavyBytes / 1e6);
    const synMb = `${bytes / 1e6} MB`;
    const thMb = `${toolHeavyBytes / 1e6} MB`;
    const out: Ratio[] = [
      s.ratio(`exact, 2 workers / baseline (b) gpt-tokenizer alone, synthetic ${synMb}`, s.speed('exact, --workers 2'), s.tokenizerOnly('baseline (b)'), 1.8),
      r.ratio(`exact, 2 workers / baseline (b) gpt-tokenizer alone, real text ${synMb}`, r.speed('exact, --workers 2'), r.tokenizerOnly('baseline (b)'), 2.5),
      s.ratio(
        `exact, 2 workers / baseline (c) tcompact's engine alone, synthetic ${synMb}`,
        s.speed('exact, --workers 2'),
        s.tokenizerOnly('baseline (c)'),
        1.6,
      ),
      r.ratio(
        `exact, 2 workers / baseline (c) tcompact's engine alone, real text ${synMb}`,
        r.speed('exact, --workers 2'),
        r.tokenizerOnly('baseline (c)'),
        1.6,
      ),
      s.ratio(`heuristic, 2 workers / baseline (a) JSON round trip, synthetic ${synMb}`, s.speed('heuristic, --workers 2'), s.speed('baseline (a)'), 1.0),
      s.cpuRatioAtMost(`CPU per MB: heuristic, 2 workers / baseline (a) JSON round trip, synthetic ${synMb}`, 'heuristic, --workers 2', 'baseline (a)', 2.0),
      r.cpuRatioAtMost(`CPU per MB: heuristic, 2 workers / baseline (a) JSON round trip, real text ${synMb}`, 'heuristic, --workers 2', 'baseline (a)', 2.0),
      t.cpuRatioAtMost(
        `CPU per MB: heuristic, 2 workers / baseline (a) JSON round trip, tool-heavy synthetic ${thMb}`,
        'heuristic, --workers 2',
        'baseline (a)',
        2.0,
      ),
      t.cpuLessStart(`CPU per MB less the start's CPU: heuristic, 2 workers, tool-heavy synthetic ${thMb}`, 'heuristic, --workers 2', start.rows),
      t.cpuRatioLessStart(
        `CPU per MB less each one's start: heuristic, 2 workers / baseline (a) JSON round trip, tool-heavy synthetic ${thMb}`,
        'heuristic, --workers 2',
        'baseline (a)',
        start.rows,
      ),
      r.cpuRatioAtMost(`CPU per MB: exact, 2 workers / baseline (c) tcompact's engine alone, real text ${synMb}`, 'exact, --workers 2', 'baseline (c)', 1.6),
      // Each of these is the difference of two whole runs of 35-60 ms/MB, so their spread is mostly the runs' noise;
      // `node bench/worker-costs.mjs refs-cost FILE` measures the same work (worker and writer) in one warm process, the
      // two sides of each pair back to back, without the starts and the pool that make that noise.
      s.refsCost(`side store: CPU per MB with refs less --no-refs, heuristic, 2 workers, synthetic ${synMb}`, 'heuristic, --workers 2', 5),
      r.refsCost(`side store: CPU per MB with refs less --no-refs, heuristic, 2 workers, real text ${synMb}`, 'heuristic, --workers 2', 5),
      t.refsCost(`side store: CPU per MB with refs less --no-refs, heuristic, 2 workers, tool-heavy synthetic ${thMb}`, 'heuristic, --workers 2', 5),
      s.refsDisk(`side store: refs.jsonl bytes per input byte, heuristic, 2 workers, synthetic ${synMb}`, 'heuristic, --workers 2'),
      r.refsDisk(`side store: refs.jsonl bytes per input byte, heuristic, 2 workers, real text ${synMb}`, 'heuristic, --workers 2'),
      t.refsDisk(`side store: refs.jsonl bytes per input byte, heuristic, 2 workers, tool-heavy synthetic ${thMb}`, 'heuristic, --workers 2'),
      s.cpuAtMost(`CPU per MB, exact, 2 workers, synthetic ${synMb}`, 'exact, --workers 2', 50),
      r.cpuAtMost(`CPU per MB, exact, 2 workers, real text ${synMb}`, 'exact, --workers 2', 60),
      s.cpuAtMost(`CPU per MB, heuristic, 2 workers, synthetic ${synMb}`, 'heuristic, --workers 2', 20),
      s.ratio(`exact: 2 workers / 1 worker, synthetic ${synMb}`, s.speed('exact, --workers 2'), s.speed('exact, --workers 1'), 1.7),
      f.ratio(
        `new user, ${firstTryBytes / 1e6} MB synthetic: exact, 2 workers / baseline (b)`,
        f.speed('exact, --workers 2'),
        f.tokenizerOnly('baseline (b)'),
        1.8,
      ),
      f.ratio(
        `new user, ${firstTryBytes / 1e6} MB synthetic: heuristic, 2 workers / baseline (a)`,
        f.speed('heuristic, --workers 2'),
        f.speed('baseline (a)'),
        1.0,
      ),
    ];
    const tokenizerGain = (x: typeof s) => x.ratio('', x.tokenizerOnly('baseline (c)'), x.tokenizerOnly('baseline (b)')).value;
    const fmt = (v: number | null) => (v === null ? 'n/a' : `${v.toFixed(2)}x`);
    const notes = [
      'Baselines (b) and (c) are compared on their tokenizer-only figure: the time inside the counting calls, without reading or parsing.',
      'The baselines count every occurrence; tcompact counts each distinct long text once per worker (a content cache), which is allowed to beat them.',
      'The baselines do not bound their memory (readline reads ahead of a slower consumer, V8 collects lazily under a large heap limit); their peak RSS is for reference only.',
      "tokens: the baselines count the text fields only; the pipeline's report.json (tokens before) adds 3 tokens of framing per message, attachments (chars/4) and tool definitions.",
    ];
    const tables: Table[] = [
      rowTable(`Synthetic archive, ${synMb} (${medianOf})`, syn.rows, [...notes, `tcompact's engine / gpt-tokenizer alone: ${fmt(tokenizerGain(s))}.`], true),
      rowTable(
        `Real-text archive, ${(real.bytes / 1e6).toFixed(0)} MB spliced from the ${real.corpus} real transcripts (${medianOf})`,
        rt.rows,
        [`tcompact's engine / gpt-tokenizer alone: ${fmt(tokenizerGain(r))}.`, secretScanNote(rt.rows, chosen.label)],
        true,
      ),
      rowTable(
        `Tool-heavy synthetic archive, ${thMb}: about 130 messages and 78 tool results per transcript, most of them short (${medianOf})`,
        th.rows,
        [
          'The same generator as the synthetic archive in its tool-heavy shape (datasets/generate.ts, TOOL_HEAVY): tool calls in batches and outputs a quarter the size.',
        ],
        true,
      ),
      rowTable(
        `A new user's run: ${firstTryBytes / 1e6} MB synthetic archive, \`tcompact run --workers 2\` against the one-core baselines (${sameSize ? medianOf : allRounds})`,
        first.rows,
        [],
        true,
      ),
    ];
    tables.push(startTable(start, startMb, syn, bytes / 1e6, th, toolHeavyBytes / 1e6, startRounds));
    if (ctx.profile) tables.push(...(await profileRun(synthetic, chosen.strategies, chosen.label, ctx)));
    return {
      params: {
        archiveBytes: bytes,
        realTextBytes: real.bytes,
        realTextCorpus: real.corpus,
        firstTryBytes,
        toolHeavyBytes,
        seeds: { synthetic: 1, realText: 1, toolHeavy: 1, firstTry: sameSize ? 1 : 2 },
        rounds,
        loadAverage1mAtStart,
        strategies: chosen.strategies,
        rssMethod: syn.rssMethod,
        files: [synthetic, real.file, toolHeavy, small].map((p) => p.replace(`${ROOT}/`, '')),
        profile: ctx.profile === true,
      },
      results: { synthetic: syn.rows, realText: rt.rows, toolHeavy: th.rows, firstTry: first.rows, start: start.rows },
      tables,
      ratios: out,
      pending,
    };
  },
};
