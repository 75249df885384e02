import { IN_FLIGHT_PER_WORKER } from '../../pipeline/job/capacity.js';
import { EXIT } from '../exit-codes.js';
import type { CliIO } from '../command.js';
import type { ParsedFlags } from '../flags.js';
import type { FLAGS } from '../commands/worker.js';

/** What 'tcompact worker' does with its parsed flags; loaded only when the command runs. */
export async function workerAction({ values }: ParsedFlags<typeof FLAGS>, io: CliIO): Promise<number> {
  const { queue, threads } = values;
  const concurrency = values.concurrency ?? threads * IN_FLIGHT_PER_WORKER;
  const heapMb = values['worker-heap-mb'];
  const lockMs = values['lock-ms'];
  const graceMs = values['queue-grace-ms'];
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const log = (line: string): void => void io.stdout.write(`tcompact worker: ${queue.redact(line)}\n`);
  try {
    // Loaded only here: BullMQ and ioredis add ~45 MB to a process, which a local run does not need.
    const { runWorkerProcess } = await import('../../worker-process/worker-process.js');
    const counts = await runWorkerProcess({ queue, threads, concurrency, heapMb, lockMs, graceMs, log, stop: stop.signal });
    log(`stopped after ${counts.ok} shards ok, ${counts.failed} committed as errors, ${counts.crashed} crashed attempts`);
    // Everything of ours is closed, but BullMQ's connections may still hold the process: they keep reconnecting to a
    // Redis that is gone, and after a Redis restart a closed worker's blocking connection may never end. The process
    // ends anyway (the timer is unref'd, so a process that can end by itself does).
    setTimeout(() => process.exit(EXIT.OK), 100).unref();
    return EXIT.OK;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
