import { join } from 'node:path';
import { gooseStoreSessions, isGooseStore } from '../../formats/goose-db.js';
import { sessionOf } from '../_agent.js';
import { headRecords, listDir, readHead, timeOf } from '../_files.js';
import { envValue, pathsOf, roamingAppData, xdgHome } from '../_paths.js';
import { scanStores } from '../_stores.js';
import type { AgentSource, Session, SourceEnvironment } from '../types.js';

/**
 * goose keeps sessions in `<data>/sessions/` (crates/goose/src/config/paths.rs): `<data>` is `$GOOSE_PATH_ROOT/data`
 * when that is an absolute path, else the etcetera crate's app folder for Block's goose, `%APPDATA%\Block\goose\data`
 * on Windows and `$XDG_DATA_HOME/goose` (`~/.local/share/goose`) elsewhere, macOS included (etcetera's XDG strategy,
 * which goose chooses on every platform but Windows). Current versions keep every session in a SQLite database there,
 * `sessions.db` (session/storage.rs), listed session by session; earlier ones a JSON Lines file per session,
 * `<id>.jsonl` (session/legacy.rs), which goose copies into the database and leaves in place: a file whose session
 * the database holds is read from there, not twice.
 */
export const goose: AgentSource = {
  agent: 'goose',
  locations(environment) {
    const [dir, origin] = sessionsDir(environment);
    return [
      { agent: 'goose', kind: 'database', dir, origin, format: 'goose-db' },
      { agent: 'goose', kind: 'sessions', dir, origin, format: 'goose' },
    ];
  },
  async scan(location) {
    const database = await scanStores(
      'goose',
      location.dir,
      (name) => name === 'sessions.db',
      (store) => {
        if (!isGooseStore(store)) throw new Error("not goose's database (no sessions and messages tables of goose's columns)");
        return gooseStoreSessions(store);
      },
    );
    if (location.kind === 'database') return database;
    const inDatabase = new Set(database.sessions.map((s) => s.store?.session));
    const sessions: Session[] = [];
    const entries = await listDir(location.dir);
    for (const entry of entries) {
      if (!entry.isFile() || !entry.name.endsWith('.jsonl') || inDatabase.has(entry.name.slice(0, -'.jsonl'.length))) continue;
      const file = join(location.dir, entry.name);
      // The first line is the session's metadata ({working_dir, description, ...}); messages carry `created` (seconds).
      const records = headRecords(await readHead(file));
      const start = records.map((r) => (typeof r.role === 'string' ? timeOf(r.created) : undefined)).find((t) => t !== undefined);
      const cwd = typeof records[0]?.working_dir === 'string' ? records[0].working_dir : undefined;
      const session = await sessionOf('goose', [file], { start, projects: [cwd] });
      if (session) sessions.push(session);
    }
    return { sessions, notRead: [] };
  },
};

function sessionsDir(environment: SourceEnvironment): [string, string] {
  const paths = pathsOf(environment);
  const root = envValue(environment, 'GOOSE_PATH_ROOT');
  if (root !== undefined && paths.isAbsolute(root)) return [paths.join(root, 'data', 'sessions'), 'GOOSE_PATH_ROOT'];
  if (environment.platform === 'win32') {
    const [appData, origin] = roamingAppData(environment);
    return [paths.join(appData, 'Block', 'goose', 'data', 'sessions'), origin];
  }
  const [data, origin] = xdgHome(environment, 'XDG_DATA_HOME', '.local/share');
  return [paths.join(data, 'goose', 'sessions'), origin];
}
