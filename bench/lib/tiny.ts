import { Bench } from 'tinybench';

export interface TinyTask {
  name: string;
  /** One iteration: a whole pass over a corpus. */
  fn: () => unknown;
  /** Untimed preparation before each iteration (fresh copies, fresh caches). */
  beforeEach?: () => void;
}

export interface TinyResult {
  name: string;
  /** Mean and median of one iteration, in ms; null when the task errored. */
  meanMs: number | null;
  p50Ms: number | null;
  /** Relative margin of error of the mean, in percent. */
  rme: number | null;
  samples: number;
  error?: string;
}

/** Time budgets: a quick run takes a couple of iterations per task, a full run about 2 s of samples per task. */
export function benchOptions(quick: boolean): { time: number; iterations: number; warmupTime: number; warmupIterations: number } {
  return quick ? { time: 150, iterations: 2, warmupTime: 0, warmupIterations: 1 } : { time: 2000, iterations: 5, warmupTime: 200, warmupIterations: 2 };
}

export async function runTiny(tasks: readonly TinyTask[], quick: boolean): Promise<TinyResult[]> {
  const bench = new Bench({ ...benchOptions(quick), throws: false });
  for (const t of tasks) bench.add(t.name, t.fn, t.beforeEach ? { beforeEach: t.beforeEach } : {});
  await bench.run();
  return bench.tasks.map((task): TinyResult => {
    const r = task.result;
    if (r.state === 'completed' || r.state === 'aborted-with-statistics') {
      return { name: task.name, meanMs: r.latency.mean, p50Ms: r.latency.p50, rme: r.latency.rme, samples: r.latency.samplesCount ?? task.runs };
    }
    return { name: task.name, meanMs: null, p50Ms: null, rme: null, samples: 0, error: r.state === 'errored' ? String(r.error?.message ?? r.error) : r.state };
  });
}
