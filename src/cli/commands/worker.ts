import { defaultWorkers, DEFAULT_WORKER_HEAP_MB, IN_FLIGHT_PER_WORKER } from '../../pipeline/job/capacity.js';
import { DEFAULT_LOCK_MS, DEFAULT_QUEUE_GRACE_MS } from '../../pipeline/executors/queue/queue-timing.js';
import { parseQueueUrl } from '../../pipeline/executors/queue/queue-url.js';
import { TcompactError } from '../../errors.js';
import { type Command, intOption, parseCommandArgs } from '../command.js';
import { EXIT } from '../exit-codes.js';

export const workerCommand: Command = {
  name: 'worker',
  summary: "take shards of distributed runs ('run --queue') from Redis and process them, on any machine",
  help: `Usage: tcompact worker --queue redis://[user:pass@]HOST:PORT[/DB] [options]

A long-running process that serves every distributed run ('tcompact run --queue URL') on that Redis: it takes shard
jobs, runs each on its own pool of worker threads, writes the shard file into the run's DIR and completes the job
with the shard's checksum. Inputs and DIR must be at the same path on this machine as on the coordinator (a shared
volume); a job whose input or DIR this machine cannot use fails with E_IO naming the path and this host. One line per
shard on stdout: run, shard, MB, ms, attempt, outcome. SIGTERM or Ctrl-C: finish the shards in flight, take no new
ones, exit 0.

Options:
  --queue URL            Redis of the runs (required); rediss:// for TLS; the password is never printed
  --threads N            worker threads (default: the number of cores, here ${defaultWorkers()})
  --concurrency N        shards in flight per run (default: 2 per thread)
  --worker-heap-mb N     heap limit of each thread (default ${DEFAULT_WORKER_HEAP_MB})
  --lock-ms N            job lock, renewed while this process lives; a killed worker's shard is handed on about
                         0.5 to 1.5 times this long after (default ${DEFAULT_LOCK_MS})
  --queue-grace-ms N     while stopping, how long Redis may be away before the worker stops without it (default
                         ${DEFAULT_QUEUE_GRACE_MS})

Exit codes: 0 stopped by a signal, 2 usage error or Redis unreachable at start (E_QUEUE).`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs('worker', argv, {
      queue: { type: 'string' },
      threads: { type: 'string' },
      concurrency: { type: 'string' },
      'worker-heap-mb': { type: 'string' },
      'lock-ms': { type: 'string' },
      'queue-grace-ms': { type: 'string' },
    });
    if (positionals.length > 0) throw new TcompactError('E_USAGE', `worker: takes no inputs (the coordinator plans them), got "${positionals[0]}"`);
    if (values.queue === undefined) throw new TcompactError('E_USAGE', "worker: --queue URL is required (see 'tcompact worker --help')");
    const queue = parseQueueUrl(values.queue);
    const threads = intOption('threads', values.threads, defaultWorkers(), 1, 256);
    const concurrency = intOption('concurrency', values.concurrency, threads * IN_FLIGHT_PER_WORKER, 1, 1024);
    const heapMb = intOption('worker-heap-mb', values['worker-heap-mb'], DEFAULT_WORKER_HEAP_MB, 16);
    const lockMs = intOption('lock-ms', values['lock-ms'], DEFAULT_LOCK_MS, 1000);
    const graceMs = intOption('queue-grace-ms', values['queue-grace-ms'], DEFAULT_QUEUE_GRACE_MS, 0);
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
  },
};
