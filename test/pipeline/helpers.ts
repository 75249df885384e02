import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readInputs } from '../../src/formats/read-inputs.js';
import { BUNDLED, CLI, ROOT } from '../helpers/paths.js';

export { BUNDLED, CLI, ROOT };

/** Strategies the pipeline tests run: every mechanical one that needs no threshold. */
export const TEST_STRATEGIES = ['strip-reasoning', 'dedup-tools', 'mask-observations', 'strip-attachments', 'prune-tools'];

export { tempDir } from '../helpers/temp-dir.js';

/** Shards of the interrupt and full-disk suites: small, so a signal or a full disk lands between two of them. */
export const SMALL_SHARD_BYTES = 96 * 1024;

/** `tcompact run` of `archive` into `out` on 2 workers and small shards, with the test strategies, quietly. */
export function shardedRunArgs(archive: string, out: string): string[] {
  return [
    'run',
    archive,
    '--out',
    out,
    '--shard-bytes',
    String(SMALL_SHARD_BYTES),
    '--workers',
    '2',
    '--quiet',
    ...TEST_STRATEGIES.flatMap((s) => ['--strategy', s]),
  ];
}

let archiveCache: string[] | undefined;
const firstCache = new Map<string, string[]>();

/** The bundled real transcripts (Claude Code, tau-bench, SWE-agent, OpenHands), converted to canonical archive lines. */
export async function realArchiveLines(): Promise<string[]> {
  if (!archiveCache) archiveCache = await firstRealLines(() => true, Infinity);
  return archiveCache;
}

/** The first `count` bundled transcripts that pass `keep`, in input order; reading stops there. */
async function firstRealLines(keep: (line: string) => boolean, count: number): Promise<string[]> {
  const lines: string[] = [];
  if (count <= 0) return lines;
  for await (const item of readInputs([BUNDLED], { maxLineBytes: 64 * 1024 * 1024 })) {
    if (item.kind !== 'transcript') continue;
    const line = JSON.stringify(item.transcript);
    if (!keep(line)) continue;
    lines.push(line);
    if (lines.length >= count) break;
  }
  return lines;
}

/** The first `count` real transcripts of up to `maxLineBytes`, in input order, as canonical archive lines. */
export async function realLines(pick: { count?: number; maxLineBytes?: number } = {}): Promise<string[]> {
  const max = pick.maxLineBytes ?? Infinity;
  const keep = (l: string) => l.length <= max;
  if (pick.count === undefined || archiveCache) return (await realArchiveLines()).filter(keep).slice(0, pick.count);
  // A few lines need not convert the whole bundled set (seconds on a loaded machine).
  const key = `${pick.count}/${max}`;
  const lines = firstCache.get(key) ?? (await firstRealLines(keep, pick.count));
  firstCache.set(key, lines);
  return lines;
}

/** Writes the real transcripts as a canonical JSONL archive: optionally only lines up to `maxLineBytes`, the first `count`. */
export async function writeRealArchive(path: string, pick: { count?: number; maxLineBytes?: number } = {}): Promise<string[]> {
  const lines = await realLines(pick);
  writeFileSync(path, lines.map((l) => `${l}\n`).join(''));
  return lines;
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI; `onSpawn` may signal the child (kill tests). */
export function runCli(
  args: string[],
  options: { env?: Record<string, string>; nodeArgs?: string[]; onSpawn?: (pid: number, kill: (signal: NodeJS.Signals) => void) => void } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), CLI, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    options.onSpawn?.(child.pid ?? -1, (signal) => child.kill(signal));
  });
}

export function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** Parts of report.json that vary from run to run (timings, worker count, reuse of shards). */
export function deterministicReport(outDir: string): unknown {
  const report = JSON.parse(readFileSync(join(outDir, 'report.json'), 'utf8')) as Record<string, unknown>;
  delete report.timing;
  delete report.workers;
  delete report.execution;
  report.strategies = (report.strategies as Record<string, unknown>[]).map(({ ms: _ms, ...rest }) => rest);
  return report;
}

/** What two runs of the same job must agree on, byte for byte. */
export function outputDigest(outDir: string): Record<string, string> {
  const digest: Record<string, string> = {};
  for (const name of ['transcripts.jsonl', 'errors.jsonl', 'refs.jsonl']) {
    digest[name] = existsSync(join(outDir, name)) ? sha256(join(outDir, name)) : 'missing';
  }
  digest.report = createHash('sha256')
    .update(JSON.stringify(deterministicReport(outDir)))
    .digest('hex');
  return digest;
}

export interface ErrorLine {
  file: string;
  line: number;
  byteOffset: number;
  code: string;
  message: string;
}

export function readJsonl<T>(path: string): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as T);
}

export function readReport(outDir: string): {
  lines: { read: number; ok: number; failed: number; skipped: number };
  transcripts: number;
  tokens: { before: number; after: number; saved: number; tokenizer?: string; engine?: string | null };
  errorsByCode: Record<string, number>;
  skippedByReason: Record<string, number>;
  execution: { shards: number; reusedShards: number; retriedShards: number; failedShards: number };
  warnings: number;
  duplicateIds: { count: number; examples: string[] };
  messages: { before: number; after: number };
} {
  return JSON.parse(readFileSync(join(outDir, 'report.json'), 'utf8'));
}

/**
 * The accounting identity: lines.read = ok + failed + skipped, one output transcript per ok line (archives), and one
 * errors.jsonl line per failed line.
 */
export function accounting(outDir: string): { identity: boolean; transcriptsOut: number; errorLines: number } {
  const r = readReport(outDir);
  const transcriptsOut = readJsonl(join(outDir, 'transcripts.jsonl')).length;
  const errorLines = readJsonl(join(outDir, 'errors.jsonl')).length;
  return { identity: r.lines.read === r.lines.ok + r.lines.failed + r.lines.skipped, transcriptsOut, errorLines };
}

/** Faults the fixtures inject (see test/fixtures/workers/faulty-worker.mjs and test/fixtures/preload/faults.mjs). */
export interface Faults {
  crash?: { line: number; mode: 'exit' | 'throw' | 'oom'; file?: string; attempts?: number };
  shardDelayMs?: number;
  enospcOnCommit?: number[];
  /** Files written under `under` (named `match` only, if given) share `afterBytes` bytes; then ENOSPC. */
  enospc?: { under: string; match?: string; afterBytes: number };
  /** Writing a file or making a folder under `under` fails with EROFS. */
  readOnly?: { under: string };
}

/**
 * Runs `fn` with worker faults: returns runPipeline's workerFile (the built worker wrapped by the faulty fixture), which
 * reads the faults from the environment the pool's workers copy when they start.
 */
export async function withWorkerFaults<T>(faults: Pick<Faults, 'crash' | 'shardDelayMs'>, fn: (workerFile: string) => Promise<T>): Promise<T> {
  process.env.TCOMPACT_FIXTURE_FAULTS = JSON.stringify(faults);
  try {
    return await fn(pathToFileURL(join(ROOT, 'test/fixtures/workers/faulty-worker.mjs')).href);
  } finally {
    delete process.env.TCOMPACT_FIXTURE_FAULTS;
  }
}

/** `runCli` options that inject faults into the built CLI through the fixture preload. */
export function cliFaults(faults: Faults): { env: Record<string, string>; nodeArgs: string[] } {
  return {
    env: { TCOMPACT_FIXTURE_FAULTS: JSON.stringify(faults) },
    nodeArgs: ['--import', pathToFileURL(join(ROOT, 'test/fixtures/preload/faults.mjs')).href],
  };
}
