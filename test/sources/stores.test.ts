import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSourceFilters } from '../../src/sources/filters.js';
import { discoverInputs } from '../../src/sources/discover.js';
import { linuxEnvironment, writeOpenCodeStorage } from '../helpers/agent-home.js';
import { runMain } from '../helpers/cli-in-process.js';
import { crushFixtureSessions, writeCrushDatabase } from '../helpers/crush-database.js';
import { gooseFixtureSessions, writeGooseDatabase } from '../helpers/goose-database.js';
import { otherSession, readExport, writeOpenCodeDatabase } from '../helpers/opencode-database.js';
import { runSqlitePython } from '../helpers/sqlite-writer.js';
import { tempDir } from '../helpers/temp-dir.js';

const FIRST = readExport(join(import.meta.dirname, '..', 'fixtures', 'opencode', 'ses_5b2e1c7d9ffeAbCdEf012345.json'));
// A day later, in another project.
const SECOND = otherSession(FIRST, 'Kk2', '/home/dev/api-server', 86_400_000);

/** A home with OpenCode's database (both sessions, the second's last messages in the WAL) and Kilo's (the second). */
function storeHome(): { home: string; opencodeDb: string; kiloDb: string } {
  const home = tempDir('store-home');
  const opencodeDb = join(home, '.local', 'share', 'opencode', 'opencode.db');
  const kiloDb = join(home, '.local', 'share', 'kilo', 'kilo.db');
  writeOpenCodeDatabase(opencodeDb, [FIRST, SECOND], { walFrom: FIRST.messages.length + 2 });
  writeOpenCodeDatabase(kiloDb, [SECOND]);
  return { home, opencodeDb, kiloDb };
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe('sessions inside SQLite stores', () => {
  it('lists each store with its sessions, dated by their own times', async () => {
    const { home, opencodeDb, kiloDb } = storeHome();
    const { found, inputs, sessions } = await discoverInputs(linuxEnvironment(home));
    const stores = found.filter((s) => s.kind === 'database');
    expect(stores.map((s) => [s.agent, s.format, s.sessions, s.files, s.firstFrom])).toEqual([
      ['opencode', 'opencode-db', 2, 2, 'session'],
      ['kilo', 'opencode-db', 1, 1, 'session'],
    ]);
    expect(stores[0].first).toBe(new Date(FIRST.info.time!.created!).toISOString());
    expect(stores[0].last).toBe(new Date(SECOND.info.time!.updated!).toISOString());
    expect(inputs).toEqual([opencodeDb, kiloDb]);
    expect(sessions).toEqual({ [opencodeDb]: [FIRST.info.id, SECOND.info.id], [kiloDb]: [SECOND.info.id] });
  });

  it('reads a session the database holds from there only, not again from the JSON storage its migration left', async () => {
    const { home, opencodeDb } = storeHome();
    const storage = join(home, '.local', 'share', 'opencode', 'storage');
    const exportFile = join(tempDir('store-export'), 'first.json');
    writeFileSync(exportFile, JSON.stringify(FIRST));
    writeOpenCodeStorage(exportFile, storage);
    const { found, inputs } = await discoverInputs({ ...linuxEnvironment(home), filters: parseSourceFilters({ agent: ['opencode'] }) });
    expect(found.map((s) => [s.kind, s.sessions])).toEqual([['database', 2]]);
    expect(inputs).toEqual([opencodeDb]);
  });

  it('selects sessions inside a store by --since and --project, and reads only those', async () => {
    const { home, opencodeDb } = storeHome();
    const since = await discoverInputs({
      ...linuxEnvironment(home),
      filters: parseSourceFilters({ agent: ['opencode'], since: day(SECOND.info.time!.created!) }),
    });
    expect(since.sessions).toEqual({ [opencodeDb]: [SECOND.info.id] });
    const project = await discoverInputs({ ...linuxEnvironment(home), filters: parseSourceFilters({ agent: ['opencode'], project: 'TODO-cli' }) });
    expect(project.sessions).toEqual({ [opencodeDb]: [FIRST.info.id] });

    const out = join(tempDir('store-out'), 'out.jsonl');
    const r = await runMain(['convert', '--agent', 'opencode', '--project', 'api-server', '--out', out], { env: { HOME: home, XDG_DATA_HOME: '' } });
    expect(r.code, r.stderr).toBe(0);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { id: string }).id)).toEqual([SECOND.info.id]);
  });

  it("selects sessions inside goose's store and Crush's project stores, and reads a goose session file the store holds from the store only", async () => {
    const home = tempDir('goose-crush-home');
    const [first, second] = gooseFixtureSessions();
    const gooseDir = join(home, '.local', 'share', 'goose', 'sessions');
    const gooseDb = join(gooseDir, 'sessions.db');
    writeGooseDatabase(gooseDb, [first, second], { walFrom: first.messages.length + 2 });
    // goose imported the first session's file into its store and left the file in place.
    copyFileSync(join(import.meta.dirname, '..', 'fixtures', 'goose', '20251112_094402.jsonl'), join(gooseDir, '20251112_094402.jsonl'));
    const [main, agent] = crushFixtureSessions();
    const crushDb = join(home, 'work', 'todo', '.crush', 'crush.db');
    writeCrushDatabase(crushDb, [main, agent]);
    mkdirSync(join(home, '.local', 'share', 'crush'));
    writeFileSync(
      join(home, '.local', 'share', 'crush', 'projects.json'),
      JSON.stringify({ projects: [{ path: '/home/dev/todo-cli', data_dir: join(home, 'work', 'todo', '.crush'), last_accessed: '2026-02-03T10:11:46Z' }] }),
    );

    const all = await discoverInputs(linuxEnvironment(home));
    expect(all.found.map((s) => [s.agent, s.kind, s.format, s.sessions])).toEqual([
      ['goose', 'database', 'goose-db', 2],
      ['crush', 'projects', 'crush', 2],
    ]);
    expect(all.sessions).toEqual({ [gooseDb]: [first.id, second.id], [crushDb]: [main.id, agent.id] });

    const since = await discoverInputs({ ...linuxEnvironment(home), filters: parseSourceFilters({ agent: ['goose'], since: '2025-11-13' }) });
    expect(since.sessions).toEqual({ [gooseDb]: [second.id] });
    const project = await discoverInputs({ ...linuxEnvironment(home), filters: parseSourceFilters({ project: 'todo-CLI' }) });
    expect(project.sessions).toEqual({ [gooseDb]: [first.id], [crushDb]: [main.id, agent.id] });

    const out = join(tempDir('goose-crush-out'), 'out.jsonl');
    const r = await runMain(['convert', '--agent', 'goose', '--project', 'api-server', '--out', out], { env: { HOME: home, XDG_DATA_HOME: '' } });
    expect(r.code, r.stderr).toBe(0);
    expect(
      readFileSync(out, 'utf8')
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: string }).id),
    ).toEqual([second.id]);
  });

  it('makes run --resume refuse a store whose WAL took a commit since, naming the WAL', async () => {
    const { home, opencodeDb } = storeHome();
    const out = join(tempDir('store-run'), 'run');
    const before = readdirSync(join(home, '.local', 'share', 'opencode')).sort();
    const first = await runMain(['run', opencodeDb, '--out', out, '--workers', '1', '--quiet']);
    expect(first.code, first.stderr).toBe(0);
    expect(readdirSync(join(home, '.local', 'share', 'opencode')).sort()).toEqual(before);
    // The agent commits one more message: only the WAL changes.
    const dbBytes = readFileSync(opencodeDb);
    runSqlitePython(
      `
import os, sqlite3, sys
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute('PRAGMA wal_autocheckpoint=0')
con.execute("INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_zzlater', ?, 1, 1, '{\\"role\\":\\"user\\"}')", (sys.argv[2],))
os.kill(os.getpid(), 9)
`,
      opencodeDb,
      SECOND.info.id,
    );
    expect(readFileSync(opencodeDb).equals(dbBytes)).toBe(true);
    const resumed = await runMain(['run', opencodeDb, '--out', out, '--workers', '1', '--quiet', '--resume']);
    expect(resumed.code).toBe(3);
    expect(resumed.stderr).toContain(`${opencodeDb}-wal`);
  });
});
