import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateArchive, TOOL_HEAVY, writeArchive } from '../../datasets/generate.js';
import { parseTranscript } from '../../src/model/parse.js';
import { findViolations } from '../../src/model/validity.js';
import type { AssistantMessage, Message, ToolMessage } from '../../src/model/message.js';
import { tempDir } from '../helpers/temp-dir.js';

function archiveText(seed: number, targetBytes: number, extra: object = {}): string {
  let out = '';
  for (const line of generateArchive({ seed, targetBytes, ...extra })) out += `${line}\n`;
  return out;
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

describe('synthetic archive generator', () => {
  const text = archiveText(7, 3_000_000);
  const transcripts = text
    .trimEnd()
    .split('\n')
    .map((line) => parseTranscript(JSON.parse(line)));

  it('gives byte-identical output for the same seed and different output for another seed', () => {
    expect(sha(archiveText(7, 3_000_000))).toBe(sha(text));
    expect(sha(archiveText(8, 3_000_000))).not.toBe(sha(text));
  });

  it('gives the archive of its version: cached archives are named by GENERATOR_VERSION, which a change of output must bump', () => {
    expect(sha(text)).toBe('7a687532588904bc83c2658b4e18b9aad9c45be8bc5b2f9671482c74e22eb6a0');
  });

  it('in the tool-heavy shape, writes valid transcripts with more tool results per MB, most of the messages', () => {
    const shapeOf = (archive: string) => {
      const lines = archive.trimEnd().split('\n');
      let messages = 0;
      let tools = 0;
      for (const line of lines) {
        const parsed = parseTranscript(JSON.parse(line));
        expect(parsed.ok).toBe(true);
        if (!parsed.ok) continue;
        expect(findViolations(parsed.value.transcript.messages)).toEqual([]);
        messages += parsed.value.transcript.messages.length;
        tools += parsed.value.transcript.messages.filter((m) => m.role === 'tool').length;
      }
      return { toolsPerMB: tools / (Buffer.byteLength(archive) / 1e6), toolShare: tools / messages };
    };
    const heavy = shapeOf(archiveText(7, 3_000_000, TOOL_HEAVY));
    const plain = shapeOf(text);
    expect(heavy.toolsPerMB).toBeGreaterThan(1.5 * plain.toolsPerMB);
    expect(heavy.toolShare).toBeGreaterThan(0.55);
    expect(plain.toolShare).toBeLessThan(0.55);
  });

  it('reaches the requested size within 1% (plus at most 16 KiB for a minimal last transcript)', () => {
    for (const target of [50_000, 700_000, 3_000_000]) {
      const bytes = Buffer.byteLength(target === 3_000_000 ? text : archiveText(3, target));
      expect(bytes).toBeGreaterThanOrEqual(target);
      expect(bytes - target).toBeLessThanOrEqual(target * 0.01 + 16 * 1024);
    }
  });

  it('writes only valid canonical transcripts: schema ok, no warnings, no tool-call violations', () => {
    expect(transcripts.length).toBeGreaterThan(3);
    for (const parsed of transcripts) {
      expect(parsed.ok).toBe(true);
      if (!parsed.ok) continue;
      expect(parsed.value.warnings).toEqual([]);
      expect(findViolations(parsed.value.transcript.messages)).toEqual([]);
    }
  });

  it('has the shape compaction works on: re-reads, overlapping reads, edits between reads, reasoning, attachments, failures, todos', () => {
    const messages: Message[] = transcripts.flatMap((p) => (p.ok ? p.value.transcript.messages : []));
    const calls = messages.flatMap((m) => (m.role === 'assistant' ? ((m as AssistantMessage).tool_calls ?? []) : []));
    const args = (name: string) => calls.filter((c) => c.function.name === name).map((c) => JSON.parse(c.function.arguments) as Record<string, unknown>);

    // Claude Code reads: file_path with optional offset/limit; the same file read again, with overlapping windows.
    const reads = args('Read');
    expect(reads.some((a) => typeof a.offset === 'number' && typeof a.limit === 'number')).toBe(true);
    const byPath = new Map<string, { from: number; to: number }[]>();
    for (const a of reads) {
      const from = (a.offset as number | undefined) ?? 1;
      const to = a.limit === undefined ? Infinity : from + (a.limit as number) - 1;
      byPath.set(a.file_path as string, [...(byPath.get(a.file_path as string) ?? []), { from, to }]);
    }
    const reread = [...byPath.values()].filter((ranges) => ranges.length > 1);
    expect(reread.length).toBeGreaterThan(10);
    const overlapsWithoutEqual = reread.some((ranges) =>
      ranges.some((a, i) => ranges.some((b, j) => i !== j && a.from <= b.to && b.from <= a.to && (a.from !== b.from || a.to !== b.to))),
    );
    expect(overlapsWithoutEqual).toBe(true);
    // An edit of a file that was read before and is read again after.
    const order = calls.map((c) => ({ name: c.function.name, path: (JSON.parse(c.function.arguments) as { file_path?: string }).file_path }));
    const editedBetween = order.some(
      (c, i) =>
        c.name === 'Edit' &&
        order.slice(0, i).some((r) => r.name === 'Read' && r.path === c.path) &&
        order.slice(i + 1).some((r) => r.name === 'Read' && r.path === c.path),
    );
    expect(editedBetween).toBe(true);

    // The OpenAI-agent dialect: read_file with path/start_line/end_line.
    expect(args('read_file').some((a) => typeof a.path === 'string' && typeof a.start_line === 'number' && typeof a.end_line === 'number')).toBe(true);
    expect(args('TodoWrite').every((a) => Array.isArray(a.todos))).toBe(true);
    expect(args('TodoWrite').length + args('todo_write').length).toBeGreaterThan(0);

    expect(messages.some((m) => m.role === 'assistant' && typeof (m as AssistantMessage).reasoning_content === 'string')).toBe(true);
    const tools = messages.filter((m): m is ToolMessage => m.role === 'tool');
    expect(tools.some((m) => m.is_error === true && typeof m.content === 'string' && m.content.startsWith('Exit code'))).toBe(true);
    expect(Math.max(...tools.map((m) => (typeof m.content === 'string' ? m.content.length : 0)))).toBeGreaterThan(20_000);
    const attachments = messages.filter((m) => Array.isArray(m.content) && (m.content as { type: string }[]).some((p) => p.type === 'image_url'));
    expect(attachments.length).toBeGreaterThan(0);
  });

  describe('writeArchive', () => {
    const dir = tempDir('gen');
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('streams the same bytes generateArchive yields, and counts them', async () => {
      const file = join(dir, 'a.jsonl');
      const summary = await writeArchive(file, { seed: 7, targetBytes: 3_000_000 });
      const written = readFileSync(file, 'utf8');
      expect(sha(written)).toBe(sha(text));
      expect(summary.bytes).toBe(Buffer.byteLength(text));
      expect(summary.transcripts).toBe(transcripts.length);
      expect(summary.messages).toBe(transcripts.reduce((n, p) => n + (p.ok ? p.value.transcript.messages.length : 0), 0));
    });
  });
});
