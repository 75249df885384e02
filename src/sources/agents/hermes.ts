import { hermesStoreSessions, isHermesStore } from '../../formats/hermes.js';
import { envValue, expandHome, pathsOf } from '../_paths.js';
import { scanStores } from '../_stores.js';
import type { AgentSource } from '../types.js';

/**
 * Hermes Agent keeps its sessions in `state.db` under its home: `$HERMES_HOME` when set, else `~/.hermes` on every
 * platform (NousResearch/hermes-agent hermes_constants.py `get_hermes_home`, hermes_state.py `DEFAULT_DB_PATH`). Each
 * session of the store is a session here.
 */
export const hermes: AgentSource = {
  agent: 'hermes',
  locations(environment) {
    const home = envValue(environment, 'HERMES_HOME');
    const dir = home !== undefined ? expandHome(environment, home) : pathsOf(environment).join(environment.home, '.hermes');
    return [{ agent: 'hermes', kind: 'database', dir, origin: home !== undefined ? 'HERMES_HOME' : 'default', format: 'hermes' }];
  },
  scan: (location) =>
    scanStores(
      'hermes',
      location.dir,
      (name) => name === 'state.db',
      (store) => {
        if (!isHermesStore(store)) throw new Error('not a Hermes state database (no sessions and messages tables of Hermes)');
        return hermesStoreSessions(store);
      },
    ),
};
