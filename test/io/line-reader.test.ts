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
});
