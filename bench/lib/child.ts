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
  /**
   * CPU time of the process in ms, user + system of all its threads (GNU time's %U + %S), null without GNU time. Unlike
   * wall time it barely moves when other jobs share the cores.
   */
  cpuMs: number | null;
  stdout: string;
  stderr: string;
}

const GNU_TIME = '/usr/bin/time';

/**
 * Runs a command and measures wall time from spawn to exit (process start-up included), CPU time and peak RSS. CPU and
 * peak RSS come from GNU time (`%U %S`, `%M`: the kernel's rusage of the child) when /usr/bin/time exists; otherwise
 * peak RSS comes from polling VmHWM in /proc/<pid>/status every 20 ms, which can miss a peak in the last 20 ms before
 * exit, and CPU is unknown.
 */
export async function runMeasured(command: string, args: readonly string[], tmpDir: string, env: NodeJS.ProcessEnv = process.env): Promise<ChildRun> {
  const useTime = existsSync(GNU_TIME);
  const timeFile = join(tmpDir, `time-${process.pid}-${Date.now()}.txt`);
  const [cmd, argv] = useTime ? [GNU_TIME, ['-f', '%M %U %S', '-o', timeFile, command, ...args]] : [command, [...args]];
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
  let cpuMs: number | null = null;
  if (useTime && existsSync(timeFile)) {
    const [kb, user, sys] = (readFileSync(timeFile, 'utf8').trim().split('\n').at(-1) ?? '').split(' ').map(Number);
    rmSync(timeFile, { force: true });
    if (Number.isFinite(kb)) {
      peakRssMB = kb / 1024;
      rssMethod = 'gnu-time';
    }
    if (Number.isFinite(user) && Number.isFinite(sys)) cpuMs = (user + sys) * 1000;
  } else if (polledKb > 0) {
    peakRssMB = polledKb / 1024;
    rssMethod = 'proc-poll';
  }
  return { exitCode, wallMs, peakRssMB, rssMethod, cpuMs, stdout, stderr };
}

function vmHwmKb(pid: number): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}
