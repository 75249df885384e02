/** Below this size a buffer is left to the GC: it may be a slice of Node's shared Buffer pool, and is not worth it. */
const RELEASE_MIN_BYTES = 64 * 1024;

/**
 * Frees the memory of `view`'s ArrayBuffer now instead of at the next full GC, when the view covers the whole buffer
 * (so nothing else can be using it); the buffer is detached, and every view of it reads as empty from then on. A shard's
 * output arrives on the main thread as a transferred buffer outside V8's heap, which V8 counts as external memory and
 * frees only when a mark-compact finds its (long promoted) owner dead: each few outputs started one on a heap that had
 * not grown. Moving the buffer into a message that is never delivered detaches it, and closing both ports drops it.
 */
export function releaseBuffer(view: Uint8Array): void {
  const { buffer } = view;
  if (!(buffer instanceof ArrayBuffer) || view.byteOffset !== 0 || view.byteLength !== buffer.byteLength || buffer.byteLength < RELEASE_MIN_BYTES) return;
  const channel = new MessageChannel();
  channel.port1.postMessage(null, [buffer]);
  channel.port1.close();
  channel.port2.close();
}
