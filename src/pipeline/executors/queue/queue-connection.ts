import { Redis } from 'ioredis';
import { TcompactError } from '../../../errors.js';
import type { QueueUrl } from './queue-url.js';

/** How long the first contact with Redis may take before a run gives up with E_QUEUE. */
const CONNECT_TIMEOUT_MS = 5000;

/**
 * A connection for BullMQ: it retries commands forever (`maxRetriesPerRequest: null`, which BullMQ's blocking calls
 * need) and reconnects on its own after Redis restarts; the coordinator decides itself when a loss is fatal.
 */
export function openConnection(queue: QueueUrl, name: string): Redis {
  const client = new Redis(queue.url, { maxRetriesPerRequest: null, connectionName: name, retryStrategy: (times) => Math.min(times * 200, 2000) });
  // Without a listener ioredis prints every failed reconnect; the owners watch `close`/`ready` instead.
  client.on('error', () => undefined);
  return client;
}

/** Checks once that Redis answers (password included): E_QUEUE, naming the URL without its password, if not. */
export async function probeQueue(queue: QueueUrl): Promise<void> {
  const probe = new Redis(queue.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: CONNECT_TIMEOUT_MS });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    await probe.ping();
  } catch (err) {
    const reason = queue.redact((err as Error).message || String(err));
    throw new TcompactError('E_QUEUE', `cannot reach the queue at ${queue.redacted}: ${reason}`);
  } finally {
    probe.disconnect();
  }
}

/**
 * Watches a connection: `onLost` fires once when it stays down for `graceMs` (Redis stopped or unreachable), so a
 * short blip costs nothing but a lasting loss ends the run instead of waiting forever.
 */
export function watchConnection(client: Redis, graceMs: number, onLost: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  const down = (): void => {
    timer ??= setTimeout(onLost, graceMs);
  };
  const up = (): void => {
    clearTimeout(timer);
    timer = undefined;
  };
  client.on('close', down);
  client.on('ready', up);
  return () => {
    up();
    client.off('close', down);
    client.off('ready', up);
  };
}
