import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeLine, readLines, type RawLine } from '../../src/io/line-reader.js';
import { tempDir } from '../helpers/temp-dir.js';

const dir = tempDir('lines');
function file(name: string, content: Buffer | string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}
async function all(path: string, maxLineBytes = 1024, highWaterMark = 7): Promise<RawLine[]> {
  const out: RawLine[] = [];
  for await (const l of readLines(path, { maxLineBytes, highWaterMark })) out.push(l);
  return out;
}

describe('readLines', () => {
  it('tracks line numbers and byte offsets across chunk boundaries', async () => {
    const lines = await all(file('a.jsonl', 'first line\nsecond\n\nfourth é\n'));
    expect(lines.map((l) => [l.line, l.byteOffset, l.bytes?.toString()])).toEqual([
      [1, 0, 'first line'],
      [2, 11, 'second'],
      [3, 18, ''],
      [4, 19, 'fourth é'],
    ]);
    expect(lines.every((l) => l.terminated)).toBe(true);
  });

  it('yields an unterminated last line as such', async () => {
    const lines = await all(file('b.jsonl', 'one\ntwo'));
    expect(lines.at(-1)).toMatchObject({ line: 2, byteOffset: 4, terminated: false });
  });

  it('reports a line over the limit without buffering it, and goes on', async () => {
    const lines = await all(file('c.jsonl', `short\n${'x'.repeat(5000)}\nafter\n`), 100);
    expect(lines[1]).toMatchObject({ line: 2, bytes: null, byteLength: 5000 });
    expect(lines[2]).toMatchObject({ line: 3, byteOffset: 5007 });
    expect(decodeLine(lines[1], 100)).toMatchObject({ kind: 'error', error: { code: 'E_LINE_TOO_LONG' } });
  });

  it('reads only a byte range when asked (a shard)', async () => {
    const path = file('d.jsonl', 'l1\nl2\nl3\nl4\n');
    const out: RawLine[] = [];
    for await (const l of readLines(path, { maxLineBytes: 100, start: 3, end: 9, firstLine: 2 })) out.push(l);
    expect(out.map((l) => [l.line, l.bytes?.toString()])).toEqual([
      [2, 'l2'],
      [3, 'l3'],
    ]);
  });

  it('with views, gives the same lines, those within one chunk as views of it', async () => {
    const path = file('e.jsonl', 'ab\ncd\nefghijklmn\no\n');
    const lines = async (views: boolean) => {
      const out: RawLine[] = [];
      for await (const l of readLines(path, { maxLineBytes: 100, highWaterMark: 8, views })) out.push(l);
      return out;
    };
    const [copied, viewed] = [await lines(false), await lines(true)];
    expect(viewed.map((l) => l.bytes?.toString())).toEqual(['ab', 'cd', 'efghijklmn', 'o']);
    expect(viewed.map((l) => [l.line, l.byteOffset, l.byteLength])).toEqual(copied.map((l) => [l.line, l.byteOffset, l.byteLength]));
    // 'ab' and 'cd' sit 3 bytes apart in the first 8-byte chunk read.
    const [ab, cd] = viewed.map((l) => l.bytes!);
    expect(cd.buffer).toBe(ab.buffer);
    expect(cd.byteOffset - ab.byteOffset).toBe(3);
    expect(copied[1].bytes!.byteOffset - copied[0].bytes!.byteOffset).not.toBe(3);
  });
});

describe('decodeLine', () => {
  const raw = (bytes: Buffer, byteOffset = 0): RawLine => ({ line: 1, byteOffset, byteLength: bytes.length, bytes, terminated: true });

  it('drops a BOM on the first line and a trailing CR', () => {
    expect(decodeLine(raw(Buffer.from('\ufeff{"a":1}\r')), 10)).toEqual({ kind: 'text', text: '{"a":1}', bytes: Buffer.from('{"a":1}') });
  });

  it('treats whitespace-only lines as blank', () => {
    expect(decodeLine(raw(Buffer.from('  \r')), 10)).toEqual({ kind: 'blank' });
  });

  it('rejects invalid UTF-8 instead of replacing it, naming the byte', () => {
    const bytes = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    const decoded = decodeLine(raw(bytes), 100);
    expect(decoded).toEqual({ kind: 'error', error: { code: 'E_UTF8', message: 'invalid UTF-8 at byte 6 of the line' } });
  });

  it("decodes exactly as the web's strict decoder, and fails exactly where it fails", () => {
    const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    const pieces = ['a', '{"k":', 'é', '日本', '🙂', '\ufeff', '\u2028', '\u0000', ' '].map((t) => Buffer.from(t));
    const bad = [[0xc3, 0x28], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0xff], [0x80]].map((b) => Buffer.from(b));
    let seed = 7;
    const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    let failures = 0;
    for (let i = 0; i < 2000; i++) {
      const parts = Array.from({ length: 1 + next(12) }, () => (next(10) === 0 ? bad[next(bad.length)] : pieces[next(pieces.length)]));
      const bytes = Buffer.concat(parts);
      let expected: string | undefined;
      try {
        expected = strict.decode(bytes);
      } catch {
        expected = undefined;
      }
      const decoded = decodeLine(raw(bytes, 1), 1000);
      if (expected === undefined) {
        failures++;
        expect(decoded).toMatchObject({ kind: 'error', error: { code: 'E_UTF8' } });
      } else if (expected.trim() === '') expect(decoded).toEqual({ kind: 'blank' });
      else expect(decoded).toEqual({ kind: 'text', text: expected, bytes });
    }
    expect(failures).toBeGreaterThan(100);
  });
});
