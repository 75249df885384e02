/** Below this size a buffer is left to the GC: it may be a slice of Node's shared Buffer pool, and is not worth it. */
const RELEASE_MIN_BYTES = 64 * 1024;

/**
 * Frees the memory of `view`'s ArrayBuffer now instead of at the next full GC. The caller must hold the only use of the
 * buffer: it is detached, and every view of it reads as empty from then on; a view that does not cover its whole buffer
 * (a slice of a larger one, perhaps Node's pool) is left alone. Buffers outside V8's heap that lived long enough to be
 * promoted are freed only when a mark-compact finds their owner dead, and V8 counts them as external memory until then:
 * the shards' outputs on the main thread started a mark-compact every few shards on a heap that had not grown. Moving the
 * buffer into a message that is never delivered detaches it, and closing both ports drops it.
 */
export function releaseBuffer(view: Uint8Array): void {
  const { buffer } = view;
  if (!(buffer instanceof ArrayBuffer) || view.byteOffset !== 0 || view.byteLength !== buffer.byteLength || buffer.byteLength < RELEASE_MIN_BYTES) return;
  const channel = new MessageChannel();
  channel.port1.postMessage(null, [buffer]);
  channel.port1.close();
  channel.port2.close();
}
