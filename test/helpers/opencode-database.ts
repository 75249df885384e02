import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runSqlitePython } from './sqlite-writer.js';

type Info = Record<string, unknown> & { id: string; time?: { created?: number; updated?: number; compacting?: number; archived?: number } };
type Part = Record<string, unknown> & { id: string };
export type OpenCodeExport = { info: Info & { projectID: string }; messages: { info: Info; parts: Part[] }[] };

export interface DatabaseLayout {
  /** Messages (in session order, over all sessions) from this index on are committed to the WAL only, not checkpointed. */
  walFrom?: number;
  /** After the commits, a large transaction that spills into the WAL and never commits (the writer is killed). */
  uncommittedTail?: boolean;
}

/**
 * Writes OpenCode sessions (export documents) into a database with OpenCode's tables (packages/opencode/src/session/
 * session.sql.ts: session, message, part; project/project.sql.ts), each row as OpenCode's own JSON-to-SQLite
 * migration writes it (src/storage/json-migration.ts: the session's fields as columns, `data` the record less its
 * ids), through python3's sqlite3 in WAL mode. The database stays as a running agent leaves it: the writer is killed,
 * so the WAL holds what was not checkpointed.
 */
export function writeOpenCodeDatabase(file: string, sessions: readonly OpenCodeExport[], layout: DatabaseLayout = {}): void {
  const rows = { projects: [] as unknown[][], sessions: [] as unknown[][], messages: [] as unknown[][] };
  const seenProjects = new Set<string>();
  for (const { info, messages } of sessions) {
    if (!seenProjects.has(info.projectID)) {
      seenProjects.add(info.projectID);
      rows.projects.push([info.projectID, info.directory, info.time?.created, info.time?.updated]);
    }
    rows.sessions.push([
      info.id,
      info.projectID,
      info.parentID ?? null,
      info.slug ?? '',
      info.directory ?? '',
      info.title ?? '',
      info.version ?? '',
      info.time?.created,
      info.time?.updated,
      info.time?.compacting ?? null,
      info.time?.archived ?? null,
    ]);
    for (const m of messages) {
      const { id, sessionID: _s, ...data } = m.info;
      const parts = m.parts.map((p) => {
        const { id: partId, messageID: _m, sessionID: _ps, ...partData } = p;
        const time = partData.time as { start?: number } | undefined;
        return [partId, id, info.id, time?.start ?? m.info.time?.created, time?.start ?? m.info.time?.created, JSON.stringify(partData)];
      });
      rows.messages.push([id, info.id, m.info.time?.created, m.info.time?.created, JSON.stringify(data), parts]);
    }
  }
  mkdirSync(dirname(file), { recursive: true });
  const input = join(dirname(file), '.rows.json');
  writeFileSync(input, JSON.stringify({ ...rows, walFrom: layout.walFrom ?? rows.messages.length, tail: layout.uncommittedTail === true }));
  try {
    runSqlitePython(WRITER, file, input);
  } finally {
    // The rows file is the test's, not the agent's: only the database and its WAL stay.
    rmSync(input);
  }
}

export function readExport(file: string): OpenCodeExport {
  return JSON.parse(readFileSync(file, 'utf8')) as OpenCodeExport;
}

/**
 * The same session under other ids, in another folder, `shift` ms later: a second session for a store, with every id
 * and time its own.
 */
export function otherSession(doc: OpenCodeExport, suffix: string, directory: string, shift: number): OpenCodeExport {
  const text = JSON.stringify(doc)
    .replace(/"(ses|msg|prt)_([0-9a-zA-Z]+)"/g, (_, kind: string, id: string) => `"${kind}_${id.slice(0, -suffix.length)}${suffix}"`)
    .replace(/"(created|updated|completed|start|end|compacted)":(\d{13})/g, (_, key: string, ms: string) => `"${key}":${Number(ms) + shift}`);
  const out = JSON.parse(text) as OpenCodeExport;
  out.info.directory = directory;
  out.info.projectID = `${out.info.projectID.slice(0, -suffix.length)}${suffix}`;
  out.info.title = `${out.info.title} (${suffix})`;
  return out;
}

const WRITER = `
import json, os, sqlite3, sys
rows = json.load(open(sys.argv[2]))
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute('PRAGMA journal_mode=WAL')
con.execute('PRAGMA wal_autocheckpoint=0')
con.executescript('''
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, vcs TEXT, name TEXT, time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL, time_initialized INTEGER, sandboxes TEXT NOT NULL DEFAULT '[]');
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL REFERENCES project(id) ON DELETE CASCADE,
  workspace_id TEXT, parent_id TEXT, slug TEXT NOT NULL, directory TEXT NOT NULL, title TEXT NOT NULL,
  version TEXT NOT NULL, share_url TEXT, summary_additions INTEGER, summary_deletions INTEGER, summary_files INTEGER,
  summary_diffs TEXT, revert TEXT, permission TEXT, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL,
  time_compacting INTEGER, time_archived INTEGER);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL REFERENCES message(id) ON DELETE CASCADE,
  session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
CREATE INDEX part_session_idx ON part (session_id);
''')
for p in rows['projects']:
    con.execute('INSERT INTO project (id, worktree, time_created, time_updated) VALUES (?, ?, ?, ?)', p)
for s in rows['sessions']:
    con.execute('INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated, time_compacting, time_archived) VALUES (?,?,?,?,?,?,?,?,?,?,?)', s)
for i, m in enumerate(rows['messages']):
    if i == rows['walFrom']:
        con.execute('PRAGMA wal_checkpoint(TRUNCATE)')
    con.execute('BEGIN')
    con.execute('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?)', m[:5])
    for p in m[5]:
        con.execute('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?,?)', p)
    con.execute('COMMIT')
if rows['walFrom'] >= len(rows['messages']):
    con.execute('PRAGMA wal_checkpoint(TRUNCATE)')
if rows['tail']:
    last = rows['messages'][-1]
    con.execute('PRAGMA cache_size=1')
    con.execute('BEGIN')
    for i in range(300):
        con.execute('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?)',
            ('msg_zzuncommitted%04d' % i, last[1], last[2] + 1, last[2] + 1, json.dumps({'role': 'user', 'time': {'created': last[2] + 1}, 'pad': 'x' * 1000})))
os.kill(os.getpid(), 9)
`;
