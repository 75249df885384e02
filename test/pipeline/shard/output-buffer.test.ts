import { describe, expect, it } from 'vitest';
import { OutputBuffer } from '../../../src/pipeline/shard/output-buffer.js';

describe('output buffer', () => {
  it('keeps every byte in order as it grows past its first room, strings as UTF-8 and bytes as they are', () => {
    const out = new OutputBuffer(0);
    const expected: Buffer[] = [];
    for (let i = 0; i < 3000; i++) {
      const text = `${i} é 日本語 🙂 ${'x'.repeat(i % 97)}\n`;
      const chunk = i % 3 === 0 ? Buffer.from(text, 'utf8') : text;
      out.write(chunk);
      expected.push(Buffer.from(text, 'utf8'));
    }
    const all = Buffer.concat(expected);
    expect(all.length).toBeGreaterThan(64 * 1024 * 2);
    expect(out.length).toBe(all.length);
    expect(Buffer.compare(out.bytes(), all)).toBe(0);
  });

  it('writes a string that fills its room exactly, and one of more bytes than its room has left', () => {
    const out = new OutputBuffer(64 * 1024);
    out.write('a'.repeat(64 * 1024 - 2));
    out.write('é');
    out.write('🙂'.repeat(10));
    expect(out.bytes().toString('utf8')).toBe(`${'a'.repeat(64 * 1024 - 2)}é${'🙂'.repeat(10)}`);
  });

  it("owns its ArrayBuffer (not Node's shared pool), so it can be transferred", () => {
    const out = new OutputBuffer(10);
    out.write('short');
    const bytes = out.bytes();
    expect(bytes.byteOffset).toBe(0);
    expect(Buffer.from('x').buffer).not.toBe(bytes.buffer);
    expect(bytes.byteLength).toBe(5);
  });
});
