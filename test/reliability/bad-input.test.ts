import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runPipeline, type RunOutcome } from '../../src/pipeline/run-pipeline.js';
import { parseCompactConfig } from '../../src/strategies/compact-config.js';
import { type ErrorLine, TEST_STRATEGIES, accounting, readJsonl, readReport, realArchiveLines, tempDir } from '../pipeline/helpers.js';

/**
 * RELIABILITY cases 1, 2, 4, 5, 6, 7 on one crafted archive of real transcripts and bad lines, processed by the real
 * worker pool in shards of ~1 KiB, so bad lines fall in different shards and line numbers and byte offsets are
 * checked across shard boundaries.
 */
const dir = tempDir('bad-input');
const archive = join(dir, 'mixed.jsonl');
const lastLineOk = join(dir, 'no-final-newline.jsonl');
const empty = join(dir, 'empty.jsonl');
const out = join(dir, 'out');

/** A line written in Latin-1: `é` is the single byte 0xE9 right after this prefix. */
const LATIN1_PREFIX = '{"id":"latin1","messages":[{"role":"user","content":"caf';

interface Line {
  bytes: Buffer;
  /** What the test expects of that line. */
  expect: 'ok' | 'skipped' | `E_${string}`;
}

let lines: Line[];
let offsets: number[];
let realIds: string[];
let outcome: RunOutcome;

beforeAll(async () => {
  const real = (await realArchiveLines()).filter((l) => l.length < 20_000).slice(0, 3);
  realIds = real.map((l) => (JSON.parse(l) as { id: string }).id);
  const text = (s: string) => Buffer.from(s, 'utf8');
  lines = [
    { bytes: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), text(`${real[0]}\n`)]), expect: 'ok' }, // BOM
    { bytes: text('{"id": "broken", "messages": [\n'), expect: 'E_JSON' },
    { bytes: text('   \n'), expect: 'skipped' },
    { bytes: text(`${real[1]}\r\n`), expect: 'ok' }, // CRLF
    { bytes: Buffer.concat([text(LATIN1_PREFIX), Buffer.from([0xe9]), text('"}]}\n')]), expect: 'E_UTF8' },
    { bytes: text('{"id":"no-messages","messages":[]}\n'), expect: 'ok' },
    { bytes: text('{"id":"odd-role","messages":[{"role":"user","content":"hi"},{"role":"narrator","content":"aside","mood":"calm"}]}\n'), expect: 'ok' },
    { bytes: text('{"id":5,"messages":[]}\n'), expect: 'E_SCHEMA' },
    { bytes: text('\r\n'), expect: 'skipped' },
    { bytes: text(`${real[2]}\n`), expect: 'ok' },
    { bytes: text('{"id":"cut","messages":[{"role":"us'), expect: 'E_TRUNCATED' },
  ];
  offsets = [];
  let at = 0;
  for (const l of lines) {
    offsets.push(at);
    at += l.bytes.length;
  }
  writeFileSync(archive, Buffer.concat(lines.map((l) => l.bytes)));
  writeFileSync(lastLineOk, '{"id":"complete","messages":[{"role":"user","content":"no newline after me"}]}');
  writeFileSync(empty, '');
  const config = parseCompactConfig({ strategies: TEST_STRATEGIES });
  outcome = await runPipeline({ inputs: [archive, lastLineOk, empty], outDir: out, config, workers: 2, shardBytes: 1024 });
});

describe('bad input lines (RELIABILITY 1, 2, 4, 5, 6, 7)', () => {
  it('reports each bad line once, with its code, real line number and byte offset, and goes on', () => {
    expect(outcome.status).toBe('done');
    const errors = readJsonl<ErrorLine>(join(out, 'errors.jsonl'));
    const expected = lines.flatMap((l, i) => (l.expect.startsWith('E_') ? [{ file: archive, line: i + 1, byteOffset: offsets[i], code: l.expect }] : []));
    expect(errors.map(({ file, line, byteOffset, code }) => ({ file, line, byteOffset, code }))).toEqual(expected);
    // case 1: malformed JSON in the middle is at line 2, right after the first line's bytes
    expect(errors[0]).toMatchObject({ line: 2, byteOffset: lines[0].bytes.length, code: 'E_JSON' });
  });

  it('never replaces invalid UTF-8 with U+FFFD (case 4)', () => {
    const utf8 = readJsonl<ErrorLine>(join(out, 'errors.jsonl')).find((e) => e.code === 'E_UTF8');
    expect(utf8?.message).toBe(`invalid UTF-8 at byte ${LATIN1_PREFIX.length} of the line`);
    expect(readFileSync(join(out, 'transcripts.jsonl'), 'utf8')).not.toContain('\ufffd');
  });

  it('rejects an incomplete last line as E_TRUNCATED and accepts a complete one without a newline (case 2)', () => {
    const transcripts = readJsonl<{ id: string }>(join(out, 'transcripts.jsonl'));
    expect(transcripts.at(-1)?.id).toBe('complete');
    const truncated = readJsonl<ErrorLine>(join(out, 'errors.jsonl')).at(-1);
    expect(truncated).toMatchObject({ line: 11, code: 'E_TRUNCATED' });
  });

  it('tolerates a BOM and CRLF line ends and counts blank lines as skipped (case 5)', () => {
    const ids = readJsonl<{ id: string }>(join(out, 'transcripts.jsonl')).map((t) => t.id);
    expect(ids).toEqual([realIds[0], realIds[1], 'no-messages', 'odd-role', realIds[2], 'complete']);
    expect(readReport(out).skippedByReason).toEqual({ blank: 2 });
  });

  it('passes an unknown role through unchanged with a warning (case 7)', () => {
    const odd = readJsonl<{ id: string; messages: unknown[] }>(join(out, 'transcripts.jsonl')).find((t) => t.id === 'odd-role');
    expect(odd?.messages).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'narrator', content: 'aside', mood: 'calm' },
    ]);
    expect(readReport(out).warnings).toBe(1);
  });

  it('keeps the accounting identity, with an empty file and a transcript without messages saving 0, never NaN (cases 5, 6)', () => {
    const report = readReport(out);
    expect(report.lines).toEqual({ read: 12, ok: 6, failed: 4, skipped: 2 });
    expect(accounting(out)).toEqual({ identity: true, transcriptsOut: report.lines.ok, errorLines: report.lines.failed });
    expect(report.errorsByCode).toEqual({ E_JSON: 1, E_SCHEMA: 1, E_TRUNCATED: 1, E_UTF8: 1 });
    expect(Number.isFinite(report.tokens.saved)).toBe(true);
  });

  it('writes a valid empty output for an empty input, with savings 0 (case 6)', async () => {
    const emptyOut = join(dir, 'out-empty');
    const config = parseCompactConfig({ strategies: TEST_STRATEGIES });
    const result = await runPipeline({ inputs: [empty], outDir: emptyOut, config, workers: 1 });
    expect(result.status).toBe('done');
    const report = JSON.parse(readFileSync(join(emptyOut, 'report.json'), 'utf8'));
    expect(report.lines).toEqual({ read: 0, ok: 0, failed: 0, skipped: 0 });
    expect(report.tokens).toMatchObject({ before: 0, after: 0, saved: 0, savedShare: 0 });
    expect(readFileSync(join(emptyOut, 'transcripts.jsonl'), 'utf8')).toBe('');
    expect(readFileSync(join(emptyOut, 'report.md'), 'utf8')).not.toContain('NaN');
  });
});
