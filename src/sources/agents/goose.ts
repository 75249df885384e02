import { join } from 'node:path';
import { notReadOf, sessionOf } from '../_agent.js';
import { headRecords, listDir, readHead, timeOf } from '../_files.js';
import { envValue, pathsOf, roamingAppData, xdgHome } from '../_paths.js';
import type { AgentSource, Session, SourceEnvironment } from '../types.js';

/**
 * goose keeps sessions in `<data>/sessions/` (crates/goose/src/config/paths.rs): `<data>` is `$GOOSE_PATH_ROOT/data`
 * when that is an absolute path, else the etcetera crate's app folder for Block's goose, `%APPDATA%\Block\goose\data`
 * on Windows and `$XDG_DATA_HOME/goose` (`~/.local/share/goose`) elsewhere, macOS included. Current versions write a
 * SQLite database there, `sessions.db`, which tcompact cannot read (`goose session export` writes a session as JSON);
 * earlier ones a JSON Lines file per session, `<id>.jsonl` (crates/goose/src/session/legacy.rs), which it reads.
 */
export const goose: AgentSource = {
  agent: 'goose',
  locations(environment) {
    const [dir, origin] = sessionsDir(environment);
    return [{ agent: 'goose', kind: 'sessions', dir, origin, format: 'goose' }];
  },
  async scan(location) {
    const sessions: Session[] = [];
    const entries = await listDir(location.dir);
    for (const entry of entries) {
      if (!entry.isFile() || !entry.name.endsWith('.jsonl')) continue;
      const file = join(location.dir, entry.name);
      // The first line is the session's metadata ({working_dir, description, ...}); messages carry `created` (seconds).
      const records = headRecords(await readHead(file));
      const start = records.map((r) => (typeof r.role === 'string' ? timeOf(r.created) : undefined)).find((t) => t !== undefined);
      const cwd = typeof records[0]?.working_dir === 'string' ? records[0].working_dir : undefined;
      const session = await sessionOf('goose', [file], { start, projects: [cwd] });
      if (session) sessions.push(session);
    }
    const databases = entries.filter((e) => e.isFile() && e.name === 'sessions.db').map((e) => join(location.dir, e.name));
    return { sessions, notRead: await notReadOf(databases, 'SQLite database: export its sessions with `goose session export --format json` to read them') };
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
