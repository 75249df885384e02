import type { FormatName } from '../formats/types.js';
import type { LlmOptionsInput } from '../llm/config.js';
import type { BatchProgress } from '../llm/batcher.js';
import type { CompactConfig } from '../strategies/compact-config.js';
import type { ShardHook } from './executors/shard-hook.js';
import type { QueueUrl } from './executors/queue/queue-url.js';

export interface RunOptions {
  inputs: string[];
  /**
   * What the report names as the inputs (report.json `inputs`, report.md, report.html), e.g. the folders the inputs
   * were found in. @default inputs
   */
  inputsLabel?: string[];
  outDir: string;
  /** Validated compaction config (parseCompactConfig). */
  config: CompactConfig;
  /** @default availableParallelism() */
  workers?: number;
  /** Reuse the shards a previous run of the same inputs and settings committed. @default false */
  resume?: boolean;
  /** @default 64 MiB */
  maxLineBytes?: number;
  /** Force the input format instead of detecting it. */
  from?: FormatName;
  /** For a SQLite store among the inputs, the only sessions to read (discovery's selection; see ReadOptions). */
  sessions?: Readonly<Record<string, readonly string[]>>;
  /** @default DEFAULT_SHARD_BYTES */
  shardBytes?: number;
  /** @default DEFAULT_MAX_ITEMS_PER_SHARD */
  maxItemsPerShard?: number;
  /** @default DEFAULT_WORKER_HEAP_MB */
  workerHeapMb?: number;
  /** Leave secrets as they are in report.json, report.md and report.html (`--show-secrets`). @default false */
  showSecrets?: boolean;
  /** First abort: stop planning, let in-flight shards finish and commit. */
  stop?: AbortSignal;
  /** Abort: drop in-flight shards too. */
  abort?: AbortSignal;
  /** Called after every shard commits, off the hot path (the progress display). */
  onProgress?: (progress: RunProgress) => void;
  /**
   * The model of the pipeline's async steps (`summarize`, `classify-tangents`); with it, `auto`'s summarizer is
   * `summarize` unless the config names another. Answers are cached in DIR/llm-cache.
   */
  llm?: LlmOptionsInput;
  /** Batch mode (`llm.batch`): called at every poll while the run waits for its batches. */
  onBatchProgress?: (progress: BatchProgress) => void;
  /** Main-thread work on each shard before it commits (after the LLM stage when `llm` is set). */
  afterShard?: ShardHook;
  /** Run the shards in this thread, one at a time, instead of on the worker pool (`compact`). @default false */
  inProcess?: boolean;
  /** Run the shards through this BullMQ queue (Redis), where `tcompact worker` processes take them; `workers` may be 0. */
  queue?: QueueUrl;
  /** With `queue`: how long Redis may be unreachable before the run stops with E_QUEUE (resumable). @default 5000 */
  queueGraceMs?: number;
  /** With `queue`: the first retry delay of a shard whose worker crashed, doubled on each attempt (E_CONFIG unless a whole number ≥ 0). @default 200 */
  queueRetryMs?: number;
  /**
   * Another worker entry (a file URL) whose default export takes a ShardTask and returns a ShardOutcome, e.g. one
   * that wraps the built `workers/compact-worker.js`. @default the built compact worker
   */
  workerFile?: string;
}

export interface RunProgress {
  /** Bytes of input covered by finished shards (archives; adapter inputs count when their file is done). */
  bytesDone: number;
  bytesTotal: number;
  transcripts: number;
  tokensSaved: number;
  /** Input lines that failed so far. */
  errors: number;
  shardsDone: number;
  /** Worker processes that finished a shard of a distributed run. */
  workersSeen?: number;
}
