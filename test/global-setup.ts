import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { reportForkExits } from './fork-exits.js';
import { ROOT } from './helpers/paths.js';

/** What the build reads: a change to any of these makes dist/ stale. */
const SOURCES = ['src', 'workers', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];

function files(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true }).flatMap((e) => files(join(path, e.name)));
}

/**
 * dist/ is current when it was built after the last change to any source and has one module per source module (a
 * removed source leaves none behind). The check costs milliseconds; a build costs a quarter of a minute on a 2-core
 * machine, and rebuilding under a suite that is running elsewhere in the same tree breaks it.
 */
function distIsCurrent(): boolean {
  const built = join(ROOT, 'dist', 'src', 'cli', 'bin.js');
  if (!existsSync(built)) return false;
  const builtAt = statSync(built).mtimeMs;
  const sources = SOURCES.map((s) => join(ROOT, s))
    .filter(existsSync)
    .flatMap(files);
  if (sources.some((f) => statSync(f).mtimeMs > builtAt)) return false;
  // A built module is one tsc emitted, with its declarations: the bundled worker's chunks (src/pipeline/worker/bundle-entry.ts) have none.
  const modules = (dir: string, ext: RegExp, emitted = false) =>
    new Set(
      files(join(ROOT, dir))
        .filter((f) => ext.test(f) && !f.endsWith('.d.ts') && (!emitted || existsSync(f.replace(ext, '.d.ts'))))
        .map((f) => relative(ROOT, f).replace(ext, '')),
    );
  const sourceModules = new Set([...modules('src', /\.ts$/), ...modules('workers', /\.ts$/)].map((m) => `dist/${m}`));
  if (!existsSync(join(ROOT, 'dist', 'src')) || !existsSync(join(ROOT, 'dist', 'workers'))) return false;
  const builtModules = new Set([...modules('dist/src', /\.js$/, true), ...modules('dist/workers', /\.js$/, true)]);
  return sourceModules.size === builtModules.size && [...sourceModules].every((m) => builtModules.has(m));
}

/** Tests that run the CLI or the worker pool use the built dist/, so it is built before the suite when it is stale. */
export default function setup(): void {
  reportForkExits();
  // tsx (the worker pool loads its TypeScript worker through it from source) would leave its cache in the temp folder.
  process.env.TSX_DISABLE_CACHE = '1';
  if (process.env.TCOMPACT_SKIP_BUILD === '1') return;
  if (!distIsCurrent()) execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
  // dist/ is current: worker pools started from source load the built worker, not the TypeScript one through tsx.
  process.env.TCOMPACT_BUILT_WORKERS = '1';
}
