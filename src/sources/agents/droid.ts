import { join } from 'node:path';
import { sessionOf } from '../_agent.js';
import { headRecords, listDir, readHead, statOf, timeOf } from '../_files.js';
import { envValue, folderList, pathsOf } from '../_paths.js';
import type { AgentSource, Location, Session } from '../types.js';

/**
 * Factory Droid keeps each session as `~/.factory/sessions/<cwd with / as ->/<uuid>.jsonl`, with its totals in
 * `<uuid>.settings.json` beside it (read with it). Droid is not open source: the folder is the one its peers read
 * (ccusage `rust/crates/ccusage/src/adapter/droid/paths.rs`, which takes `DROID_SESSIONS_DIR`, a comma-separated list,
 * in its place; tokscale `packages/core/src/sessions/droid.rs`); older versions wrote the files straight in `sessions/`.
 */
export const droid: AgentSource = {
  agent: 'droid',
  locations(environment) {
    const paths = pathsOf(environment);
    const configured = envValue(environment, 'DROID_SESSIONS_DIR');
    const dirs: [string, string][] =
      configured !== undefined
        ? folderList(environment, configured).map((dir) => [dir, 'DROID_SESSIONS_DIR'])
        : [[paths.join(environment.home, '.factory', 'sessions'), 'default']];
    return dirs.map(([dir, origin]): Location => ({ agent: 'droid', kind: 'sessions', dir, origin, format: 'droid' }));
  },
  async scan(location) {
    const sessions: Session[] = [];
    const folders = [location.dir, ...(await listDir(location.dir)).filter((e) => e.isDirectory()).map((e) => join(location.dir, e.name))];
    for (const dir of folders) {
      for (const entry of await listDir(dir)) {
        if (!entry.isFile() || !entry.name.endsWith('.jsonl')) continue;
        const file = join(dir, entry.name);
        // The first record is `session_start {id, cwd}`; messages carry an ISO `timestamp`.
        const records = headRecords(await readHead(file));
        const start = records.map((r) => timeOf(r.timestamp)).find((t) => t !== undefined);
        const cwd = records.map((r) => (r.type === 'session_start' && typeof r.cwd === 'string' ? r.cwd : undefined)).find((c) => c !== undefined);
        const settings = file.replace(/\.jsonl$/, '.settings.json');
        const alsoCounts = (await statOf(settings))?.isFile() ? [settings] : [];
        const session = await sessionOf('droid', [file], { start, alsoCounts, projects: [cwd, dir === location.dir ? undefined : dir.split(/[\\/]/).pop()] });
        if (session) sessions.push(session);
      }
    }
    return { sessions, notRead: [] };
  },
};
