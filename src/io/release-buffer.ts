/**
 * Frees the memory of `view`'s ArrayBuffer now instead of at the next full GC. The caller must hold the only use of the
 * buffer: it is detached, and every view of it reads as empty from then on. A view that does not cover its whole
 * buffer (a slice of a larger one) is left alone unless `ownsBuffer` says the caller holds that buffer's every use (a
 * shard's output is a view of a buffer reserved larger than what was written); a buffer no larger than Node's Buffer
 * pool (it may be that pool) is always left alone. Buffers outside V8's heap that lived long enough to be promoted are
 * freed only when a mark-compact finds their owner dead, and V8 counts them as external memory until then: the shards'
 * outputs on the main thread started a mark-compact every few shards on a heap that had not grown. Moving the buffer
 * into a message that is never delivered detaches it, and closing both ports drops it.
 */
export function releaseBuffer(view: Uint8Array, options: { ownsBuffer?: boolean } = {}): void {
  const { buffer } = view;
  if (!(buffer instanceof ArrayBuffer) || buffer.byteLength <= Buffer.poolSize) return;
  if (options.ownsBuffer !== true && (view.byteOffset !== 0 || view.byteLength !== buffer.byteLength)) return;
  const channel = new MessageChannel();
  channel.port1.postMessage(null, [buffer]);
  channel.port1.close();
  channel.port2.close();
}
