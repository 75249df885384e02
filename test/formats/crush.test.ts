import { copyFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCrushDatabase } from '../../src/formats/crush.js';
import { detectFormat } from '../../src/formats/detect.js';
import { readInputs } from '../../src/formats/read-inputs.js';
import type { AssistantMessage, ToolMessage } from '../../src/model/message.js';
import { sessionTotals } from '../../src/model/recorded.js';
import { findViolations } from '../../src/model/validity.js';
import { sourceCompactionPoints } from '../../src/replay/policies/source-points.js';
import { readDatabaseSnapshot } from '../../src/sqlite/snapshot.js';
import { crushFixtureSessions, writeCrushDatabase } from '../helpers/crush-database.js';
import { gooseFixtureSessions, writeGooseDatabase } from '../helpers/goose-database.js';
import { tempDir } from '../helpers/temp-dir.js';
import { READ, accountedUnits, collect, errorsOf, transcriptsOf } from './helpers.js';

// The store is written by Crush's own migrations (test/fixtures/crush/write_store.py), its rows from Crush's types
// (test/helpers/crush-database.ts).
const [MAIN, AGENT] = crushFixtureSessions();

function folderState(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name)).toString('base64')]));
}

describe("Crush's project store (.crush/crush.db)", () => {
  it('reads each session, the WAL included and the uncommitted tail left out, and changes no byte', async () => {
    const dir = join(tempDir('crush-db'), 'todo-cli', '.crush');
    const file = join(dir, 'crush.db');
    // The last four messages, and the sessions' usage saved after them, are committed to the WAL only.
    writeCrushDatabase(file, [MAIN, AGENT], { walFrom: MAIN.messages.length + AGENT.messages.length - 4, uncommittedTail: true });
    const before = folderState(dir);
    expect(Object.keys(before).sort()).toEqual(['crush.db', 'crush.db-shm', 'crush.db-wal']);
    const snapshot = await readDatabaseSnapshot(file);
    if (!snapshot.ok) throw new Error(snapshot.error.message);
    const wal = readFileSync(`${file}-wal`);
    expect(wal.length).toBeGreaterThan(32 + snapshot.value.walFrames.committed * (24 + wal.readUInt32BE(8)) + 100_000);

    const items = await collect(readInputs([file], READ));
    expect(errorsOf(items)).toEqual([]);
    expect(accountedUnits(items)).toBe(2);
    const [main, agent] = transcriptsOf(items);
    expect([main, agent].map((t) => [t.format, t.line, t.transcript.id])).toEqual([
      ['crush', 1, MAIN.id],
      ['crush', 2, AGENT.id],
    ]);
    const m = main.transcript.messages;
    expect(m.map((x) => x.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'user', 'user', 'assistant']);
    expect(m[1]).toMatchObject({
      reasoning_content: 'Look at how list reads the file.',
      content: "I'll look at the list command.",
      model: 'claude-sonnet-4-5-20250929',
      tool_calls: [{ id: 'toolu_01A', type: 'function', function: { name: 'view', arguments: '{"file_path":"/home/dev/todo-cli/src/list.ts"}' } }],
    });
    expect((m[4] as ToolMessage).is_error).toBe(true);
    expect(m[9].content).toEqual([
      { type: 'text', text: 'Now add a test like the one in this screenshot.' },
      { type: 'image_url', image_url: { url: expect.stringMatching(/^data:image\/png;base64,iVBOR/) } },
    ]);
    expect((m[10] as AssistantMessage).content).toBe('Added test/list.test.ts covering an empty file.');
    expect(findViolations(m)).toEqual([]);
    expect(main.repairs).toEqual({});
    expect(main.transcript.metadata).toMatchObject({
      source: { format: 'crush', file },
      title: MAIN.title,
      directory: join(dir, '..'),
      models: ['claude-sonnet-4-5-20250929'],
      lastRequestUsage: { prompt_tokens: 9_120, completion_tokens: 212 },
      cost: 0.0841,
    });
    expect(agent.transcript.metadata).toMatchObject({
      parentSessionId: MAIN.id,
      lastRequestUsage: { prompt_tokens: 3_100, completion_tokens: 88 },
      cost: 0.0106,
    });
    expect(folderState(dir)).toEqual(before);

    // Without its WAL the store lacks the last committed messages and the usage saved after them.
    const alone = join(tempDir('crush-db-alone'), 'crush.db');
    copyFileSync(file, alone);
    const [mainAlone] = transcriptsOf(await collect(readCrushDatabase(alone, READ)));
    expect(mainAlone.transcript.messages.length).toBeLessThan(m.length);
    expect(mainAlone.transcript.metadata).toMatchObject({ lastRequestUsage: { prompt_tokens: 0, completion_tokens: 0 }, cost: 0 });
  });

  it("keeps Crush's compaction: its summary message, sent as a user message, is the compaction point", async () => {
    const file = join(tempDir('crush-db-summary'), 'crush.db');
    writeCrushDatabase(file, [MAIN]);
    const [t] = transcriptsOf(await collect(readCrushDatabase(file, READ)));
    const m = t.transcript.messages;
    expect(t.transcript.metadata?.compactions).toEqual([{ summaryIndex: 8 }]);
    expect(m[8]).toMatchObject({ role: 'user', is_compact_summary: true, content: expect.stringContaining('**Summary**') });
    expect(sourceCompactionPoints(t.transcript).map((p) => [p.index, p.summary === m[8]])).toEqual([[8, true]]);
  });

  // No oracle to compare with: `npx -y ccusage@20.0.24 crush session --json --offline` answers `Unknown command 'crush'`.
  it('records usage only as Crush does: the last request and a running cost, no totals, no call', async () => {
    const file = join(tempDir('crush-db-usage'), 'crush.db');
    writeCrushDatabase(file, [MAIN]);
    const [t] = transcriptsOf(await collect(readCrushDatabase(file, READ)));
    expect(sessionTotals(t.transcript)).toBeUndefined();
    expect(t.transcript.messages.some((m) => m.role === 'assistant' && m.usage !== undefined)).toBe(false);
  });

  it('reads only the selected sessions, each at its own position in the store', async () => {
    const file = join(tempDir('crush-db-select'), 'crush.db');
    writeCrushDatabase(file, [MAIN, AGENT]);
    const items = await collect(readCrushDatabase(file, { ...READ, sessions: { [file]: [AGENT.id] } }));
    expect(transcriptsOf(items).map((t) => [t.line, t.transcript.id])).toEqual([[2, AGENT.id]]);
  });

  it('refuses a store migrated past what this version knows with one error naming the file, and reads the other inputs', async () => {
    const dir = tempDir('crush-db-newer');
    const newer = join(dir, 'a', 'crush.db');
    writeCrushDatabase(newer, [MAIN], { extraVersion: 20270101000000 });
    const other = join(dir, 'b', 'crush.db');
    writeCrushDatabase(other, [AGENT]);
    const items = await collect(readInputs([newer, other], READ));
    expect(errorsOf(items).map((e) => [e.record.file, e.record.code, e.record.message])).toEqual([
      [newer, 'E_FORMAT', `${newer}: a Crush database migrated to 20270101000000, past 20260127000000, the last migration this version reads`],
    ]);
    expect(transcriptsOf(items).map((t) => t.transcript.id)).toEqual([AGENT.id]);
  });

  it("tells Crush's store from goose's by their columns, both with sessions and messages tables", async () => {
    const dir = tempDir('crush-goose-detect');
    const crush = join(dir, 'crush', 'sessions.db');
    writeCrushDatabase(crush, [AGENT]);
    const goose = join(dir, 'goose', 'crush.db');
    writeGooseDatabase(goose, [gooseFixtureSessions()[0]]);
    expect(await detectFormat(crush, READ)).toEqual({ ok: true, format: 'crush', layout: 'json' });
    expect(await detectFormat(goose, READ)).toEqual({ ok: true, format: 'goose-db', layout: 'json' });
  });
});
