import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT } from './paths.js';
import { describeLoad, describeMachine, machineInfo, type MachineInfo } from './machine.js';
import { measureSources, type Sources } from './sources.js';
import { formatNumber } from './figures.js';
import type { Spread } from './spread.js';

export type Cell = string | number | null;

/** A table for the summary: numbers are formatted when rendered, null shows as "n/a". */
export interface Table {
  title: string;
  columns: string[];
  rows: Cell[][];
  notes?: string[];
  /** Also shown in the project README's Benchmarks section. */
  headline?: boolean;
}

/** A ratio the issues set a target for (e.g. pipeline / one-core JSON limit). */
export interface Ratio {
  name: string;
  /** Null while one side is not measurable yet (see `pending`). */
  value: number | null;
  /** Human-readable target, e.g. ">= 1.6". */
  target?: string;
  /** Shown after the value. @default "x" */
  unit?: string;
  met?: boolean | null;
  /** Lowest and highest of the per-round values `value` is the median of (a ratio measured round by round). */
  spread?: Spread;
}

export interface BenchOutput {
  params: Record<string, unknown>;
  /** Machine-readable figures, benchmark-specific. */
  results: unknown;
  tables: Table[];
  ratios?: Ratio[];
  /** Parts that could not run yet and why ("not yet available: ..."). */
  pending?: string[];
}

export interface BenchContext {
  quick: boolean;
  /** Scratch directory for generated archives and outputs (git-ignored). */
  tmpDir: string;
  /** `--profile`: benchmarks that can also write CPU profiles (end-to-end) do. @default false */
  profile?: boolean;
  /** `--e2e-mb N`: the size of end-to-end's main archives instead of the mode's (50 MB quick, 300 MB full). */
  e2eBytes?: number;
  log(message: string): void;
}

export interface Benchmark {
  name: string;
  title: string;
  description: string;
  /** The benchmark's module (`import.meta.url`): its import graph is the code its results measure. */
  entry: string;
  /**
   * Repository-relative entry files it also runs, in child processes or by a computed import: the built CLI's
   * sources (`CLI_SOURCES` of bench/lib/cli.ts), a script run by `node`. @default []
   */
  alsoRuns?: readonly string[];
  run(ctx: BenchContext): Promise<BenchOutput>;
}

/** The repository-relative entry files of a benchmark, whose import graphs its results measure. */
export function benchEntries(bench: Pick<Benchmark, 'entry' | 'alsoRuns'>): string[] {
  return [relative(ROOT, fileURLToPath(bench.entry)).split(sep).join('/'), ...(bench.alsoRuns ?? [])];
}

export interface BenchFile extends BenchOutput {
  name: string;
  title: string;
  description: string;
  mode: 'quick' | 'full';
  date: string;
  durationMs: number;
  /** The commit the tree was at; "+dirty" when it had uncommitted changes (others work in the same tree). */
  commit: string;
  machine: MachineInfo;
  /** The code measured: `npm run bench -- --check` fails when it has changed since (bench/lib/fresh-results.ts). */
  sources: Sources;
}

function gitCommit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no', '--', 'src', 'workers'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${head}+dirty` : head;
  } catch {
    return 'unknown';
  }
}

export function resultFile(dir: string, name: string): string {
  return join(dir, `${name}.json`);
}

export function writeResult(dir: string, bench: Benchmark, mode: 'quick' | 'full', output: BenchOutput, durationMs: number): BenchFile {
  const file: BenchFile = {
    name: bench.name,
    title: bench.title,
    description: bench.description,
    mode,
    date: new Date().toISOString(),
    durationMs: Math.round(durationMs),
    commit: gitCommit(),
    machine: machineInfo(),
    ...output,
    sources: measureSources(ROOT, benchEntries(bench)),
  };
  writeFileSync(resultFile(dir, bench.name), `${JSON.stringify(file, null, 2)}\n`);
  return file;
}

export function readResults(dir: string, order: readonly string[]): BenchFile[] {
  if (!existsSync(dir)) return [];
  const names = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -5));
  const rank = (n: string) => (order.includes(n) ? order.indexOf(n) : order.length);
  return names.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)).map((n) => JSON.parse(readFileSync(resultFile(dir, n), 'utf8')) as BenchFile);
}

function measured(r: Ratio): string {
  if (r.value === null) return 'not yet available';
  const unit = r.unit ?? 'x';
  if (r.spread === undefined || r.spread.runs < 2) return `${formatNumber(r.value)}${unit}`;
  return `${formatNumber(r.value)}${unit} (${formatNumber(r.spread.min)}–${formatNumber(r.spread.max)} over ${r.spread.runs} runs)`;
}

function cell(c: Cell): string {
  if (c === null) return 'n/a';
  return typeof c === 'number' ? formatNumber(c) : c.replaceAll('|', '\\|');
}

export function renderTable(t: Table, level = '###'): string {
  const lines = [`${level} ${t.title}`, '', `| ${t.columns.join(' | ')} |`, `|${t.columns.map(() => '---').join('|')}|`];
  for (const row of t.rows) lines.push(`| ${row.map(cell).join(' | ')} |`);
  if (t.notes && t.notes.length > 0) lines.push('', ...t.notes.map((n) => `- ${n}`));
  return lines.join('\n');
}

export function ratioTable(files: readonly BenchFile[]): Table {
  const rows: Cell[][] = [];
  for (const f of files)
    for (const r of f.ratios ?? [])
      rows.push([r.name, measured(r), r.target ?? '', r.met === undefined || r.met === null ? '' : r.met ? 'yes' : 'no', `${f.name} (${f.mode})`]);
  return { title: 'Ratios', columns: ['ratio', 'measured', 'target', 'met', 'benchmark'], rows };
}

function header(f: BenchFile): string {
  return `_${f.name}.json: ${f.mode} run of ${f.date.slice(0, 16).replace('T', ' ')} UTC at ${f.commit ?? 'unknown'}, ${Math.round(f.durationMs / 1000)} s${describeLoad(f.machine)}; ${describeMachine(f.machine)}_`;
}

/** The full summary: bench/results/README.md. */
export function renderResultsReadme(files: readonly BenchFile[]): string {
  const out = [
    '# Benchmark results',
    '',
    'Written by `npm run bench` (full) or `npm run bench -- --quick` from the JSON files next to this one; do not edit by hand.',
    'How each benchmark works: the "Benchmarks" section of the project README.',
    '',
    renderTable(ratioTable(files), '##'),
  ];
  for (const f of files) {
    out.push('', `## ${f.title}`, '', header(f), '', f.description);
    for (const t of f.tables) out.push('', renderTable(t));
    if (f.pending && f.pending.length > 0) out.push('', '**Pending**', '', ...f.pending.map((p) => `- ${p}`));
  }
  return `${out.join('\n')}\n`;
}

export const README_START = '<!-- bench-summary:start -->';
export const README_END = '<!-- bench-summary:end -->';

/**
 * The block the runner writes into docs/performance.md between the markers: ratios and headline tables, each taken from
 * the results files (their dates and load averages are in the files).
 */
export function renderReadmeBlock(files: readonly BenchFile[]): string {
  const machines = [...new Set(files.map((f) => describeMachine(f.machine)))];
  const out = [
    README_START,
    `From the latest ${[...new Set(files.map((f) => f.mode))].join(' and ')} runs on ${machines.join('; ')}. All tables, with each run's date and load: [bench/results/README.md](../bench/results/README.md).`,
    '',
    renderTable(ratioTable(files), '####'),
  ];
  for (const f of files) for (const t of f.tables) if (t.headline) out.push('', renderTable(t, '####'));
  out.push(README_END);
  return out.join('\n');
}

/** Replaces the block between the markers in `readme`; leaves everything else untouched. Null when the markers are missing. */
export function replaceReadmeBlock(readme: string, block: string): string | null {
  const start = readme.indexOf(README_START);
  const end = readme.indexOf(README_END);
  if (start === -1 || end === -1 || end < start) return null;
  return readme.slice(0, start) + block + readme.slice(end + README_END.length);
}
