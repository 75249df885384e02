import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/formats/detect.js';
import { readInputs } from '../../src/formats/read-inputs.js';
import { readZedThreads } from '../../src/formats/zed.js';
import { readDatabaseSnapshot } from '../../src/sqlite/snapshot.js';
import { runSqlitePython } from '../helpers/sqlite-writer.js';
import { tempDir } from '../helpers/temp-dir.js';
import { ZED_FIXTURES, fixtureRows, writeZedDatabase } from '../helpers/zed-database.js';
import { READ, accountedUnits, collect, errorsOf, transcriptsOf } from './helpers.js';

// Built from Zed's source (test/fixtures/zed/README.md): threads.db holds a legacy thread as JSON and a current one
// compressed with Zstandard.
const STORE = join(ZED_FIXTURES, 'threads.db');

const usageOf = (messages: Record<string, unknown>[]) => messages.filter((m) => m.role === 'assistant').map((m) => m.usage ?? 'unpriced');

describe("Zed's agent threads (threads.db)", () => {
  it('reads each thread of the store as a transcript, with each recorded call', async () => {
    expect(await detectFormat(STORE, READ)).toEqual({ ok: true, format: 'zed', layout: 'json' });
    const items = await collect(readInputs([STORE], READ));
    expect(errorsOf(items)).toEqual([]);
    expect(accountedUnits(items)).toBe(2);
    const [legacy, current] = transcriptsOf(items);
    expect([legacy.format, legacy.line, legacy.transcript.id, current.line, current.transcript.id]).toEqual([
      'zed',
      1,
      '0f8e2c4a-legacy',
      2,
      '7b1d9e3f-current',
    ]);

    // The first agent's thread: its context before the prompt, a tool call and its result, each call's usage by index.
    const old = legacy.transcript.messages as Record<string, unknown>[];
    expect(old.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(old[0].content).toEqual([
      { type: 'text', text: '<context>\nsrc/config.ts: export function loadCfg() {}\n</context>' },
      { type: 'text', text: 'Rename loadCfg to loadConfig everywhere.' },
    ]);
    expect(old[1]).toMatchObject({
      reasoning_content: 'Find every use first.',
      tool_calls: [{ id: 'toolu_01LegGrep', function: { name: 'grep', arguments: '{"regex":"loadCfg"}' } }],
    });
    expect(old[2]).toMatchObject({ role: 'tool', tool_call_id: 'toolu_01LegGrep', content: 'src/config.ts:1\nsrc/main.ts:4', is_error: false });
    expect(usageOf(old)).toEqual([
      { input_tokens: 1180, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 84 },
      { input_tokens: 1253, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 77 },
    ]);
    expect(legacy.transcript.metadata).toMatchObject({ title: 'Rename the config loader', version: '0.2.0', models: ['gpt-4.1'] });

    // The current thread: the mention's text, thinking, tool results (one failed), the Resume counted; only the last
    // call of each turn has its usage recorded (request_token_usage by user message id).
    const now = current.transcript.messages as Record<string, unknown>[];
    expect(now.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'user', 'assistant']);
    expect((now[0].content as { text: string }[])[1].text).toContain('return JSON.parse(text).items;');
    expect(now[1]).toMatchObject({ reasoning_content: expect.stringContaining('JSON.parse("") throws') as unknown, model: 'claude-sonnet-4-5' });
    expect(now[4]).toMatchObject({ role: 'tool', tool_call_id: 'toolu_01Zed7Edit', is_error: true });
    expect(usageOf(now)).toEqual([
      'unpriced',
      'unpriced',
      { input_tokens: 12, cache_creation_input_tokens: 402, cache_read_input_tokens: 9688, output_tokens: 96 },
      { input_tokens: 9, cache_creation_input_tokens: 131, cache_read_input_tokens: 10090, output_tokens: 58 },
    ]);
    expect(current.transcript.metadata).toMatchObject({ cwd: '/home/dev/todo-cli', unrecordedCalls: 2, resumes: 1, version: '0.3.0' });
    expect(current.transcript.metadata).not.toHaveProperty('compactions');
  });

  it('reads a Zstandard row as the same thread stored as JSON text', async () => {
    const [, zstd] = fixtureRows();
    const file = join(tempDir('zed-json'), 'threads.db');
    writeZedDatabase(file, [{ ...zstd, data_type: 'json', data: readFileSync(join(ZED_FIXTURES, 'thread-current.data'), 'utf8') }]);
    const asJson = transcriptsOf(await collect(readZedThreads(file, READ)))[0].transcript;
    const asZstd = transcriptsOf(await collect(readZedThreads(STORE, READ)))[1].transcript;
    expect(asJson.messages).toEqual(asZstd.messages);
  });

  it('sees a thread committed to the WAL, not the uncommitted tail, and changes no byte of the folder', async () => {
    const dir = tempDir('zed-wal');
    const file = join(dir, 'threads.db');
    writeZedDatabase(file, fixtureRows(), { walFrom: 1, uncommittedTail: true });
    const state = () => Object.fromEntries(readdirSync(dir).map((n) => [n, readFileSync(join(dir, n)).toString('base64')]));
    const before = state();
    expect(Object.keys(before).sort()).toEqual(['threads.db', 'threads.db-shm', 'threads.db-wal']);
    // The second thread is committed to the WAL only, and the killed transaction reached it past the last commit.
    const snapshot = await readDatabaseSnapshot(file);
    if (!snapshot.ok) throw new Error(snapshot.error.message);
    const wal = readFileSync(`${file}-wal`);
    expect(snapshot.value.walFrames.committed).toBeGreaterThan(0);
    expect(wal.length).toBeGreaterThan(32 + snapshot.value.walFrames.committed * (24 + wal.readUInt32BE(8)) + 100_000);
    const items = await collect(readZedThreads(file, READ));
    expect(transcriptsOf(items).map((t) => t.transcript.id)).toEqual(['0f8e2c4a-legacy', '7b1d9e3f-current']);
    expect(state()).toEqual(before);
  });

  it('gives a thread it cannot read (unknown data_type, broken Zstandard, a newer thread version) one error, and reads the others', async () => {
    const [legacy, current] = fixtureRows();
    const newer = JSON.parse(readFileSync(join(ZED_FIXTURES, 'thread-current.data'), 'utf8')) as Record<string, unknown>;
    const file = join(tempDir('zed-bad'), 'threads.db');
    writeZedDatabase(file, [
      { ...legacy, id: 'a-brotli', data_type: 'brotli' },
      { ...current, id: 'b-cut', data: (current.data as Uint8Array).subarray(0, 200) },
      { ...current, id: 'c-newer', data_type: 'json', data: JSON.stringify({ ...newer, version: '0.4.0' }) },
      current,
    ]);
    const items = await collect(readZedThreads(file, READ));
    expect(accountedUnits(items)).toBe(4);
    expect(transcriptsOf(items).map((t) => [t.line, t.transcript.id])).toEqual([[4, '7b1d9e3f-current']]);
    expect(errorsOf(items).map((e) => [e.record.line, e.record.code, e.record.message.replace(`${file}: `, '')])).toEqual([
      [1, 'E_SCHEMA', 'thread a-brotli: unknown data_type "brotli" (known: json, zstd)'],
      [2, 'E_JSON', expect.stringMatching(/^thread b-cut: its zstd data does not decode: /)],
      [3, 'E_SCHEMA', 'thread c-newer: a thread of version "0.4.0", which this version does not know (known: 0.3.0, 0.1.0, 0.2.0)'],
    ]);
  });

  it('refuses a store of a later schema (its data moved to another column) with one E_SCHEMA error naming the file', async () => {
    const file = join(tempDir('zed-newer'), 'threads.db');
    writeZedDatabase(file, fixtureRows());
    runSqlitePython(
      `
import sqlite3, sys
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute('ALTER TABLE threads RENAME COLUMN data TO payload')
con.execute('PRAGMA wal_checkpoint(TRUNCATE)')
`,
      file,
    );
    expect(await detectFormat(file, READ)).toEqual({ ok: true, format: 'zed', layout: 'json' });
    expect(await collect(readInputs([file], READ))).toEqual([
      {
        kind: 'error',
        record: { file, line: 1, byteOffset: 0, code: 'E_SCHEMA', message: `${file}: not a Zed threads database this version knows: no threads.data` },
      },
    ]);
  });
});
