import { execFile } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CLI, ROOT } from './paths.js';

const exec = promisify(execFile);

/** What a benchmark that runs dist/src/cli/bin.js measures: the CLI's sources and the worker entry points it loads. */
export const CLI_SOURCES: readonly string[] = ['src/cli/bin.ts', 'workers/compact-worker.ts', 'workers/replay-worker.ts'];

function newestMtime(dir: string): number {
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/**
 * Rebuilds dist/ when a source file is newer than the built CLI, so the benchmark measures the code in the tree. A
 * type error elsewhere does not stop tsc from emitting, so the build is used whenever the CLI file exists afterwards.
 */
export async function ensureBuiltCli(log: (m: string) => void): Promise<void> {
  const built = existsSync(CLI) ? statSync(CLI).mtimeMs : 0;
  if (built >= Math.max(newestMtime(join(ROOT, 'src')), newestMtime(join(ROOT, 'workers')))) return;
  log('building dist/ (sources are newer than the built CLI)');
  try {
    await exec(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT, maxBuffer: 16 << 20 });
  } catch (err) {
    log(
      `tsc reported errors (using what it emitted): ${String((err as { stdout?: string }).stdout ?? err)
        .split('\n')
        .slice(0, 3)
        .join(' | ')}`,
    );
  }
}

/** Whether the built CLI has a given command (its `--help` exits 0). */
export async function cliHasCommand(command: string): Promise<boolean> {
  if (!existsSync(CLI)) return false;
  try {
    await exec(process.execPath, [CLI, command, '--help'], { cwd: ROOT });
    return true;
  } catch {
    return false;
  }
}

export interface RunOptions {
  workers: number;
  tokenizer: 'o200k_base' | 'heuristic';
  /** Strategies and presets, in order. */
  strategies: readonly string[];
  /** `--no-refs`: no side store. @default true */
  refs?: boolean;
}

/** The `tcompact run` command line the benchmarks use. */
export function runArgs(inputs: readonly string[], outDir: string, o: RunOptions): string[] {
  const strategies = o.strategies.flatMap((s) => ['--strategy', s]);
  return [
    CLI,
    'run',
    ...inputs,
    '--out',
    outDir,
    ...strategies,
    '--workers',
    String(o.workers),
    '--tokenizer',
    o.tokenizer,
    ...(o.refs === false ? ['--no-refs'] : []),
    '--quiet',
  ];
}
