// The queue's timing defaults, in a module of their own: the CLI's help and flags read them without loading BullMQ.

/**
 * Default lock of a job in flight: renewed every half of it while the process lives; when a process dies (kill -9) its
 * shard goes back to the queue about this long after, by BullMQ's stalled-job check in any other worker.
 */
export const DEFAULT_LOCK_MS = 30_000;

/** A connection to Redis down this long ends the run with E_QUEUE (committed shards stay for --resume). */
export const DEFAULT_QUEUE_GRACE_MS = 5000;

/** First retry delay of a shard whose worker crashed, doubled on each attempt (BullMQ's exponential back-off). */
export const DEFAULT_RETRY_BACKOFF_MS = 200;
