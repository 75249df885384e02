import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export interface ChildRun {
  exitCode: number | null;
  wallMs: number;
  /** Peak resident set size of the process in MB (threads included: Piscina's workers are threads), null if unknown. */
  peakRssMB: number | null;
  /** How the peak was measured. */
  rssMethod: 'gnu-time' | 'proc-poll' | 'none';
  stdout: string;
  stderr: string;
}

const GNU_TIME = '/usr/bin/time';

/**
 * Runs a command and measures wall time from spawn to exit (process start-up included) and peak RSS. Peak RSS comes
 * from GNU time's `%M` (the kernel's ru_maxrss of the child) when /usr/bin/time exists; otherwise from polling
 * VmHWM in /proc/<pid>/status every 20 ms, which can miss a peak in the last 20 ms before exit.
 */
export async function runMeasured(command: string, args: readonly string[], tmpDir: string, env: NodeJS.ProcessEnv = process.env): Promise<ChildRun> {
  const useTime = existsSync(GNU_TIME);
  const timeFile = join(tmpDir, `time-${process.pid}-${Date.now()}.txt`);
  const [cmd, argv] = useTime ? [GNU_TIME, ['-f', '%M', '-o', timeFile, command, ...args]] : [command, [...args]];
  const started = performance.now();
  const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'], env });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  let polledKb = 0;
  const poll = useTime || child.pid === undefined ? undefined : setInterval(() => (polledKb = Math.max(polledKb, vmHwmKb(child.pid!))), 20);
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
  });
  const wallMs = performance.now() - started;
  if (poll) clearInterval(poll);
  let peakRssMB: number | null = null;
  let rssMethod: ChildRun['rssMethod'] = 'none';
  if (useTime && existsSync(timeFile)) {
    const kb = Number(readFileSync(timeFile, 'utf8').trim().split('\n').at(-1));
    rmSync(timeFile, { force: true });
    if (Number.isFinite(kb)) {
      peakRssMB = kb / 1024;
      rssMethod = 'gnu-time';
    }
  } else if (polledKb > 0) {
    peakRssMB = polledKb / 1024;
    rssMethod = 'proc-poll';
  }
  return { exitCode, wallMs, peakRssMB, rssMethod, stdout, stderr };
}

function vmHwmKb(pid: number): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}
