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
});
