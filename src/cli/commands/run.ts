import { DEFAULT_SHARD_BYTES, DEFAULT_WORKER_HEAP_MB, defaultWorkers } from '../../pipeline/job/capacity.js';
import { parseQueueUrl } from '../../pipeline/executors/queue/queue-url.js';
import { DEFAULT_QUEUE_GRACE_MS } from '../../pipeline/executors/queue/queue-timing.js';
import { defineCommand } from '../command.js';
import { SOURCE_FLAGS } from '../source-flags.js';
import { integer, text } from '../flag-values.js';
import { booleanFlag, valueFlag } from '../flags.js';
import { READ_FLAGS } from '../input-flags.js';
import { BATCH_FLAGS, LLM_FLAGS } from '../llm-flags.js';
import { COMPACTION_FLAGS } from '../compaction-flags.js';
import { SECRET_FLAGS } from '../secret-flags.js';

export const FLAGS = {
  out: valueFlag({ valueName: 'DIR', description: 'output directory', parse: text, required: 'see help' }),
  ...COMPACTION_FLAGS,
  ...READ_FLAGS,
  workers: valueFlag({
    valueName: 'N',
    description: 'worker threads',
    // 0 only with --queue: the coordinator alone.
    parse: (raw, at) => integer(at.given('queue') ? 0 : 1, 256)(raw, at),
    default: defaultWorkers(),
    shownDefault: `the number of cores, here ${defaultWorkers()}`,
  }),
  resume: booleanFlag({ description: 'reuse the shards an interrupted run of the same inputs and settings committed' }),
  'worker-heap-mb': valueFlag({
    valueName: 'N',
    description: 'heap limit of each worker; a worker over it fails alone',
    parse: integer(16),
    default: DEFAULT_WORKER_HEAP_MB,
  }),
  'shard-bytes': valueFlag({
    valueName: 'N',
    description: 'target size of a unit of work; a resume needs the same value',
    parse: integer(1024),
    default: DEFAULT_SHARD_BYTES,
  }),
  queue: valueFlag({
    valueName: 'URL',
    description:
      "distributed run: shards go to BullMQ jobs on Redis (redis://[user:pass@]HOST:PORT[/DB], or\nrediss:// for TLS) where 'tcompact worker' processes take them; --workers N local threads\ntake jobs too, --workers 0 only coordinates (see docs/scaling-out.md)",
    parse: parseQueueUrl,
  }),
  'queue-grace-ms': valueFlag({
    valueName: 'N',
    description: 'how long Redis may be unreachable before the run stops with E_QUEUE; --resume continues it',
    parse: integer(100),
    shownDefault: DEFAULT_QUEUE_GRACE_MS,
  }),
  quiet: booleanFlag({ description: 'no progress output' }),
  ...SOURCE_FLAGS,
  ...SECRET_FLAGS,
  ...LLM_FLAGS,
  ...BATCH_FLAGS,
};

export const runCommand = defineCommand({
  name: 'run',
  usage: 'Usage: tcompact run [input...] --out DIR [options]',
  description: `Compacts every transcript of the inputs (canonical JSONL archives, or any format the adapters read) on a pool of
worker threads and writes, in DIR: transcripts.jsonl (in input order), errors.jsonl (one line per input line that
failed: file, line, byteOffset, code, message), refs.jsonl (the side store for 'tcompact restore'), report.json,
report.md and report.html (a self-contained page with charts). Output is byte-identical whatever the number of workers. Each shard of work commits atomically and is
journaled (DIR/journal.jsonl), so an interrupted run continues with --resume.
With no input, reads the current user's agent sessions ('tcompact sources' lists them), which the
--agent, --since, --until and --project flags select, and says on stderr which folders it read; --resume
then continues only if the sessions found are the very ones of the interrupted run.`,
  flags: FLAGS,
  notes: {
    llm: '(workers never call the network: the LLM steps run on the main thread)',
    batch: 'Ctrl-C while waiting leaves the batches running; --resume picks them up and never sends a request twice.',
  },
  epilogue: `Ctrl-C stops reading, lets the shards in flight finish and commit, and exits with 130; a second Ctrl-C drops
them. Exit codes: 0 nothing failed, 1 some input failed (see errors.jsonl), 2 usage or config error, 3 resume
refused (input or config changed), 74 a file could not be read or written (E_IO, e.g. disk full: --resume continues
once there is room), 130 interrupted.`,
  run: async (args, io) => (await import('../actions/run.js')).runAction(args, io),
});
