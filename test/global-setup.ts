import { execFileSync } from 'node:child_process';

/** Tests that run the CLI or the worker pool use the built dist/, so build it once before the suite. */
export default function setup(): void {
  // tsx (the worker pool loads its TypeScript worker through it from source) would leave its cache in the temp folder.
  process.env.TSX_DISABLE_CACHE = '1';
  if (process.env.TCOMPACT_SKIP_BUILD === '1') return;
  execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
}
