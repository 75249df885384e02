import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

/**
 * When a test process dies mid-file, vitest says only "Worker exited unexpectedly"; the exit code and signal it drops
 * are what tell a kill from outside, an abort or an exit call apart. Each test process vitest forks is watched, and an
 * exit other than the SIGTERM that ends it after its files is printed with both.
 */
export function reportForkExits(): void {
  const fork = childProcess.fork;
  const watched = ((...args: Parameters<typeof fork>) => {
    const child = fork(...args);
    child.once('exit', (code, signal) => {
      if (signal !== 'SIGTERM') process.stderr.write(`test process ${child.pid} exited with code ${code}, signal ${signal}\n`);
    });
    return child;
  }) as typeof fork;
  (childProcess as { fork: typeof fork }).fork = watched;
  syncBuiltinESMExports();
}
