import { join } from 'node:path';
import { crushStoreSessions, isCrushStore } from '../../formats/crush.js';
import { readSmallJson } from '../_files.js';
import { envValue, pathsOf } from '../_paths.js';
import { scanStores } from '../_stores.js';
import type { AgentSource, NotRead, Session, SourceEnvironment } from '../types.js';

/**
 * Crush keeps each project's sessions in that project's data folder, `<project>/.crush/crush.db` by default
 * (charmbracelet/crush internal/config/load.go, internal/db/connect.go), and lists the projects it has opened, each
 * with its data folder, in `projects.json` of its global data folder (internal/projects/projects.go): the folder of
 * `GlobalConfigData()`, that is `$CRUSH_GLOBAL_DATA`, else `$XDG_DATA_HOME/crush`, else `%LOCALAPPDATA%\crush` on
 * Windows and `~/.local/share/crush` elsewhere. A project's sessions are listed with the project's folder.
 */
export const crush: AgentSource = {
  agent: 'crush',
  locations(environment) {
    const [dir, origin] = globalDataDir(environment);
    return [{ agent: 'crush', kind: 'projects', dir, origin, format: 'crush' }];
  },
  async scan(location) {
    const listed = (await readSmallJson(join(location.dir, 'projects.json'))) as { projects?: unknown } | undefined;
    const projects = Array.isArray(listed?.projects) ? listed.projects : [];
    const sessions: Session[] = [];
    const notRead: NotRead[] = [];
    const seen = new Set<string>();
    for (const p of projects) {
      const project = p as { path?: unknown; data_dir?: unknown };
      if (typeof project.data_dir !== 'string' || project.data_dir === '' || seen.has(project.data_dir)) continue;
      seen.add(project.data_dir);
      const folder = typeof project.path === 'string' ? project.path : undefined;
      const scan = await scanStores(
        'crush',
        project.data_dir,
        (name) => name === 'crush.db',
        (store) => {
          if (!isCrushStore(store)) throw new Error("not Crush's database (no sessions and messages tables of Crush's columns)");
          return crushStoreSessions(store).map((s) => ({ ...s, projects: [folder, ...s.projects] }));
        },
      );
      sessions.push(...scan.sessions);
      notRead.push(...scan.notRead);
    }
    return { sessions, notRead };
  },
};

function globalDataDir(environment: SourceEnvironment): [string, string] {
  const paths = pathsOf(environment);
  const configured = envValue(environment, 'CRUSH_GLOBAL_DATA');
  if (configured !== undefined) return [configured, 'CRUSH_GLOBAL_DATA'];
  const xdg = envValue(environment, 'XDG_DATA_HOME');
  if (xdg !== undefined) return [paths.join(xdg, 'crush'), 'XDG_DATA_HOME'];
  if (environment.platform === 'win32') {
    const local = envValue(environment, 'LOCALAPPDATA');
    if (local !== undefined) return [paths.join(local, 'crush'), 'LOCALAPPDATA'];
    return [paths.join(environment.home, 'AppData', 'Local', 'crush'), 'default'];
  }
  return [paths.join(environment.home, '.local', 'share', 'crush'), 'default'];
}
