import { defaultWorkers, DEFAULT_WORKER_HEAP_MB, IN_FLIGHT_PER_WORKER } from '../../pipeline/job/capacity.js';
import { DEFAULT_LOCK_MS, DEFAULT_QUEUE_GRACE_MS } from '../../pipeline/executors/queue/queue-timing.js';
import { parseQueueUrl } from '../../pipeline/executors/queue/queue-url.js';
import { TcompactError } from '../../errors.js';
import { defineCommand } from '../command.js';
import { integer } from '../flag-values.js';
import { valueFlag } from '../flags.js';

export const FLAGS = {
  queue: valueFlag({
    valueName: 'URL',
    description: 'Redis of the runs; rediss:// for TLS; the password is never printed',
    parse: parseQueueUrl,
    required: 'see help',
  }),
  threads: valueFlag({
    valueName: 'N',
    description: 'worker threads',
    parse: integer(1, 256),
    default: defaultWorkers(),
    shownDefault: `the number of cores, here ${defaultWorkers()}`,
  }),
  concurrency: valueFlag({
    valueName: 'N',
    description: 'shards in flight per run',
    parse: integer(1, 1024),
    shownDefault: `${IN_FLIGHT_PER_WORKER} per thread`,
  }),
  'worker-heap-mb': valueFlag({ valueName: 'N', description: 'heap limit of each thread', parse: integer(16), default: DEFAULT_WORKER_HEAP_MB }),
  'lock-ms': valueFlag({
    valueName: 'N',
    description: "job lock, renewed while this process lives; a killed worker's shard is handed on about\n0.5 to 1.5 times this long after",
    parse: integer(1000),
    default: DEFAULT_LOCK_MS,
  }),
  'queue-grace-ms': valueFlag({
    valueName: 'N',
    description: 'while stopping, how long Redis may be away before the worker stops without it',
    parse: integer(0),
    default: DEFAULT_QUEUE_GRACE_MS,
  }),
};

export const workerCommand = defineCommand({
  name: 'worker',
  usage: 'Usage: tcompact worker --queue redis://[user:pass@]HOST:PORT[/DB] [options]',
  description: `A long-running process that serves every distributed run ('tcompact run --queue URL') on that Redis: it takes shard
jobs, runs each on its own pool of worker threads, writes the shard file into the run's DIR and completes the job
with the shard's checksum. Inputs and DIR must be at the same path on this machine as on the coordinator (a shared
volume); a job whose input or DIR this machine cannot use fails with E_IO naming the path and this host. One line per
shard on stdout: run, shard, MB, ms, attempt, outcome. SIGTERM or Ctrl-C: finish the shards in flight, take no new
ones, exit 0.`,
  flags: FLAGS,
  positionals: (positionals) => {
    if (positionals.length > 0) throw new TcompactError('E_USAGE', `worker: takes no inputs (the coordinator plans them), got "${positionals[0]}"`);
  },
  epilogue: 'Exit codes: 0 stopped by a signal, 2 usage error or Redis unreachable at start (E_QUEUE).',
  run: async (args, io) => (await import('../actions/worker.js')).workerAction(args, io),
});
