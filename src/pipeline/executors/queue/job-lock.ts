/**
 * Default lock of a job in flight: renewed every half of it while the process lives; when a process dies (kill -9) its
 * shard goes back to the queue about this long after, by BullMQ's stalled-job check in any other worker.
 */
export const DEFAULT_LOCK_MS = 30_000;
