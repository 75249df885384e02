import { copyFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readGoose } from '../../src/formats/goose.js';
import { readGooseDatabase } from '../../src/formats/goose-db.js';
import { readInputs } from '../../src/formats/read-inputs.js';
import { sessionTotals } from '../../src/model/recorded.js';
import { readDatabaseSnapshot } from '../../src/sqlite/snapshot.js';
import { gooseFixtureSessions, writeGooseDatabase } from '../helpers/goose-database.js';
import { tempDir } from '../helpers/temp-dir.js';
import { READ, accountedUnits, collect, errorsOf, skippedOf, transcriptsOf } from './helpers.js';

// The store is written with goose's own tables (test/fixtures/goose-db/write_store.py, from goose's storage.rs and
// migrations.rs); its sessions are the goose session file of test/fixtures/goose, as goose's legacy import copies it.
const JSONL = join(import.meta.dirname, '..', 'fixtures', 'goose', '20251112_094402.jsonl');
const [FIRST, SECOND] = gooseFixtureSessions();
const EMPTY = { id: '20251113_2', name: 'New session', workingDir: '/home/dev', createdAt: '2025-11-13 09:00:00', messages: [] };

function folderState(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name)).toString('base64')]));
}

describe("goose's SQLite store (sessions.db)", () => {
  it('reads each session as its session file reads, the WAL included and the uncommitted tail left out, and changes no byte', async () => {
    const dir = tempDir('goose-db');
    const file = join(dir, 'sessions.db');
    // The second session's last five messages are committed to the WAL only; then a transaction is killed mid-way.
    writeGooseDatabase(file, [FIRST, SECOND, EMPTY], { walFrom: FIRST.messages.length + SECOND.messages.length - 5, uncommittedTail: true });
    const before = folderState(dir);
    expect(Object.keys(before).sort()).toEqual(['sessions.db', 'sessions.db-shm', 'sessions.db-wal']);
    const snapshot = await readDatabaseSnapshot(file);
    if (!snapshot.ok) throw new Error(snapshot.error.message);
    const wal = readFileSync(`${file}-wal`);
    // The killed transaction reached the WAL past the last commit: the test would prove nothing otherwise.
    expect(wal.length).toBeGreaterThan(32 + snapshot.value.walFrames.committed * (24 + wal.readUInt32BE(8)) + 100_000);

    const items = await collect(readInputs([file], READ));
    expect(errorsOf(items)).toEqual([]);
    expect(accountedUnits(items)).toBe(3);
    expect(skippedOf(items).map((s) => [s.line, s.reason])).toEqual([[3, 'goose/empty-session']]);
    const read = transcriptsOf(items);
    expect(read.map((t) => [t.format, t.line, t.transcript.id])).toEqual([
      ['goose-db', 1, '20251112_094402'],
      ['goose-db', 2, '20251113_1'],
    ]);
    const [fromFile] = transcriptsOf(await collect(readGoose(JSONL, READ)));
    for (const t of read) {
      expect(t.transcript.messages.map((m) => ({ ...m, created: undefined }))).toEqual(fromFile.transcript.messages.map((m) => ({ ...m, created: undefined })));
      expect(t.transcript.metadata?.compactions).toEqual(fromFile.transcript.metadata?.compactions);
      expect(t.transcript.metadata?.skippedContent).toEqual(fromFile.transcript.metadata?.skippedContent);
      expect(t.repairs).toEqual(fromFile.repairs);
    }
    expect(read[0].transcript.metadata).toMatchObject({
      source: { format: 'goose-db', file },
      working_dir: '/home/dev/todo-cli',
      description: 'Fix crash on empty todos.json',
      sessionType: 'user',
      models: ['claude-sonnet-4-20250514'],
      provider_name: 'anthropic',
    });
    expect(folderState(dir)).toEqual(before);

    // Without its WAL the store lacks the last committed messages: they are what the WAL gave.
    const alone = join(tempDir('goose-db-alone'), 'sessions.db');
    copyFileSync(file, alone);
    const [, secondAlone] = transcriptsOf(await collect(readGooseDatabase(alone, READ)));
    expect(secondAlone.transcript.messages.length).toBeLessThan(read[1].transcript.messages.length);
  });

  it("keeps goose's session totals as totals (the accumulated counters, their thinking apart), never per call", async () => {
    const file = join(tempDir('goose-db-usage'), 'sessions.db');
    writeGooseDatabase(file, [FIRST, SECOND]);
    const [first, second] = transcriptsOf(await collect(readGooseDatabase(file, READ)));
    expect(sessionTotals(first.transcript)).toEqual({
      model: 'claude-sonnet-4-20250514',
      tokens: { uncached: 40_911, written: 0, written1h: 0, read: 0, output: 966 },
      thinking: 0,
    });
    expect(sessionTotals(second.transcript)).toEqual({
      model: 'gpt-4o',
      tokens: { uncached: 11_000, written: 0, written1h: 0, read: 0, output: 1_100 },
      thinking: 300,
    });
    expect(first.transcript.messages.some((m) => m.role === 'assistant' && m.usage !== undefined)).toBe(false);
  });

  it('reads only the selected sessions, each at its own position in the store', async () => {
    const file = join(tempDir('goose-db-select'), 'sessions.db');
    writeGooseDatabase(file, [FIRST, SECOND]);
    const items = await collect(readGooseDatabase(file, { ...READ, sessions: { [file]: ['20251113_1'] } }));
    expect(transcriptsOf(items).map((t) => [t.line, t.transcript.id])).toEqual([[2, '20251113_1']]);
  });

  it('refuses a store of a newer schema version with one error naming the file, and reads the other inputs', async () => {
    const dir = tempDir('goose-db-newer');
    const newer = join(dir, 'newer', 'sessions.db');
    writeGooseDatabase(newer, [FIRST], { version: 14 });
    const other = join(dir, 'other', 'sessions.db');
    writeGooseDatabase(other, [SECOND]);
    const items = await collect(readInputs([newer, other], READ));
    expect(errorsOf(items).map((e) => [e.record.file, e.record.code, e.record.message])).toEqual([
      [newer, 'E_FORMAT', `${newer}: a goose database of schema version 14, newer than the 13 this version reads`],
    ]);
    expect(transcriptsOf(items).map((t) => t.transcript.id)).toEqual(['20251113_1']);
  });
});
