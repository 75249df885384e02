import { win32 } from 'node:path';
import { isZedStore, zedStoreSessions } from '../../formats/zed.js';
import { envValue, pathsOf, xdgHome } from '../_paths.js';
import { scanStores } from '../_stores.js';
import type { AgentSource, SourceEnvironment } from '../types.js';

/**
 * Zed keeps its agent threads in `threads/threads.db` under its data folder (crates/agent/src/db.rs): on Linux
 * `$FLATPAK_XDG_DATA_HOME/zed` under Flatpak, else `$XDG_DATA_HOME/zed` (`~/.local/share/zed`); on macOS
 * `~/Library/Application Support/Zed`; on Windows `%LOCALAPPDATA%\Zed` (crates/paths/src/paths.rs `data_dir`). Each
 * thread of the store is a session.
 */
export const zed: AgentSource = {
  agent: 'zed',
  locations(environment) {
    const [data, origin] = dataDir(environment);
    return [{ agent: 'zed', kind: 'database', dir: pathsOf(environment).join(data, 'threads'), origin, format: 'zed' }];
  },
  scan: (location) =>
    scanStores(
      'zed',
      location.dir,
      (name) => name === 'threads.db',
      (store) => {
        if (!isZedStore(store)) throw new Error('not a Zed threads database (no threads table with id, summary and updated_at)');
        return zedStoreSessions(store);
      },
    ),
};

function dataDir(environment: SourceEnvironment): [string, string] {
  const paths = pathsOf(environment);
  if (environment.platform === 'darwin') return [paths.join(environment.home, 'Library', 'Application Support', 'Zed'), 'default'];
  if (environment.platform === 'win32') {
    const local = envValue(environment, 'LOCALAPPDATA');
    return local !== undefined ? [win32.join(local, 'Zed'), 'LOCALAPPDATA'] : [win32.join(environment.home, 'AppData', 'Local', 'Zed'), 'default'];
  }
  const flatpak = envValue(environment, 'FLATPAK_XDG_DATA_HOME');
  if (flatpak !== undefined) return [paths.join(flatpak, 'zed'), 'FLATPAK_XDG_DATA_HOME'];
  const [data, origin] = xdgHome(environment, 'XDG_DATA_HOME', '.local/share');
  return [paths.join(data, 'zed'), origin];
}
