import { describe, expect, it } from 'vitest';
import { releaseBuffer } from '../../src/io/release-buffer.js';

describe('releaseBuffer', () => {
  it('detaches a buffer the view covers whole, so its memory is not left to a full GC', () => {
    const bytes = Buffer.allocUnsafeSlow(256 * 1024).fill(7);
    const { buffer } = bytes;
    releaseBuffer(bytes);
    expect(buffer.byteLength).toBe(0);
    expect(bytes.byteLength).toBe(0);
  });

  it('leaves alone a slice of a larger buffer and a small buffer (which may be a slice of the shared pool)', () => {
    const whole = Buffer.allocUnsafeSlow(256 * 1024).fill(1);
    releaseBuffer(whole.subarray(0, 200 * 1024));
    expect(whole.byteLength).toBe(256 * 1024);
    expect(whole[255 * 1024]).toBe(1);
    const small = Buffer.from('a short line');
    releaseBuffer(small);
    expect(small.toString()).toBe('a short line');
    const pooled = Buffer.from('x'.repeat(100));
    expect(pooled.buffer.byteLength).toBeGreaterThan(pooled.byteLength);
    releaseBuffer(Buffer.from(pooled.buffer));
    expect(pooled.toString()).toBe('x'.repeat(100));
  });

  it('detaches the buffer behind a slice when the caller owns it whole (a shard output reserved larger than written), never the pool', () => {
    const whole = Buffer.allocUnsafeSlow(256 * 1024).fill(2);
    const written = whole.subarray(0, 100 * 1024);
    releaseBuffer(written, { ownsBuffer: true });
    expect(whole.buffer.byteLength).toBe(0);
    expect(written.byteLength).toBe(0);
    const pooled = Buffer.from('y'.repeat(100));
    releaseBuffer(pooled, { ownsBuffer: true });
    expect(pooled.toString()).toBe('y'.repeat(100));
  });
});
