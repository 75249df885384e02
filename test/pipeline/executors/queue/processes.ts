import { type ChildProcess, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { CLI, ROOT } from '../../../helpers/paths.js';

/** What the processes printed since the last password check took it (see distributed-run.test.ts). */
export const allLogs: string[] = [];

/** Worker processes still running: a failed test must not leave them behind. */
const running = new Set<WorkerProcess>();

/** Kills (SIGKILL) every worker process a test left running, except those in `keep` (a worker shared by several tests). */
export async function killLeftoverWorkers(keep: ReadonlySet<WorkerProcess> = new Set()): Promise<void> {
  const left = [...running].filter((w) => !keep.has(w));
  for (const worker of left) worker.kill('SIGKILL');
  await Promise.all(left.map((w) => w.exited));
}

/** A `tcompact worker` process of the built CLI. */
export class WorkerProcess {
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;

  /** `faults`: the reliability fixtures' fault injection (cliFaults), for this process only. */
  constructor(url: string, faults: { env: Record<string, string>; nodeArgs: string[] } = { env: {}, nodeArgs: [] }, extraArgs: string[] = []) {
    this.child = spawn(process.execPath, [...faults.nodeArgs, CLI, 'worker', '--queue', url, '--threads', '1', '--lock-ms', '1000', ...extraArgs], {
      cwd: ROOT,
      env: { ...process.env, ...faults.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout?.on('data', (d: Buffer) => (this.stdout += d.toString()));
    this.child.stderr?.on('data', (d: Buffer) => (this.stderr += d.toString()));
    running.add(this);
    this.exited = new Promise((resolve) =>
      this.child.on('close', (code) => {
        running.delete(this);
        allLogs.push(this.stdout, this.stderr);
        resolve(code);
      }),
    );
  }

  /** Shard lines this worker logged. */
  get shardsLogged(): number {
    return this.stdout.split('\n').filter((l) => / shard \d+ /.test(l)).length;
  }

  async waitForShards(n: number): Promise<void> {
    while (this.shardsLogged < n) await sleep(20);
  }

  kill(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** SIGTERM: finish the shards in flight, then exit; resolves with the exit code. */
  async stop(): Promise<number | null> {
    this.child.kill('SIGTERM');
    return this.exited;
  }
}

/** Resolves once `count` worker processes hold their connection to the Redis at `url` (they take jobs from then on). */
export async function workersConnected(url: string, count: number): Promise<void> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  client.on('error', () => undefined);
  try {
    for (;;) {
      const clients = String(await client.client('LIST'));
      if (clients.split('\n').filter((l) => / name=tcompact-worker /.test(l)).length >= count) return;
      await sleep(50);
    }
  } finally {
    client.disconnect();
  }
}

/**
 * `promise`, or a failure naming the phase that did not finish within `ms` and what the worker processes printed, so
 * a hang says where it is instead of running into the test's timeout.
 */
export async function within<T>(ms: number, phase: string, promise: Promise<T>, workers: readonly WorkerProcess[] = []): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const logs = workers.map((w, i) => `worker ${i}: ${w.stdout.slice(-2000)}${w.stderr.slice(-2000)}`).join('\n');
      reject(new Error(`${phase}: not done within ${ms} ms\n${logs}`));
    }, ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
