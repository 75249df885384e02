import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { sessionOf } from '../_agent.js';
import { headRecords, listDir, readHead, readSmallJson, statOf, timeOf } from '../_files.js';
import { envValue, folderList, pathsOf } from '../_paths.js';
import type { AgentSource, Location, Session } from '../types.js';

/**
 * Kimi CLI keeps its data in `$KIMI_SHARE_DIR`, else `~/.kimi` (MoonshotAI/kimi-cli `src/kimi_cli/share.py`), every
 * platform; ccusage reads `$KIMI_DATA_DIR` in its place (a comma-separated list). A session is the folder
 * `sessions/<md5 of the work directory>/<session id>/` (`src/kimi_cli/metadata.py`, `session.py`): its
 * `context.jsonl` is read, with the rotated `context_N.jsonl` and the `wire.jsonl` beside it (counted with it); the
 * work directory is the `kimi.json` entry whose path hashes to the folder's name.
 */
export const kimi: AgentSource = {
  agent: 'kimi',
  locations(environment) {
    const paths = pathsOf(environment);
    const sessions = (dir: string, origin: string): Location => ({ agent: 'kimi', kind: 'sessions', dir: paths.join(dir, 'sessions'), origin, format: 'kimi' });
    const share = envValue(environment, 'KIMI_SHARE_DIR');
    if (share !== undefined) return [sessions(share, 'KIMI_SHARE_DIR')];
    const data = envValue(environment, 'KIMI_DATA_DIR');
    if (data !== undefined) return folderList(environment, data).map((dir) => sessions(dir, 'KIMI_DATA_DIR'));
    return [sessions(paths.join(environment.home, '.kimi'), 'default')];
  },
  async scan(location) {
    const found: Session[] = [];
    const workDirs = await workDirsByHash(join(location.dir, '..', 'kimi.json'));
    for (const group of await listDir(location.dir)) {
      if (!group.isDirectory()) continue;
      for (const entry of await listDir(join(location.dir, group.name))) {
        if (!entry.isDirectory()) continue;
        const dir = join(location.dir, group.name, entry.name);
        const file = join(dir, 'context.jsonl');
        if (!(await statOf(file))?.isFile()) continue;
        const beside = (await listDir(dir)).filter((e) => e.isFile() && /^(context_\d+|wire)\.jsonl$/.test(e.name)).map((e) => join(dir, e.name));
        // The wire log's lines carry their time (seconds); its first event is the session's start.
        const wire = beside.find((f) => f.endsWith('wire.jsonl'));
        const start = wire
          ? headRecords(await readHead(wire))
              .map((r) => timeOf(r.timestamp))
              .find((t) => t !== undefined)
          : undefined;
        const session = await sessionOf('kimi', [file], { start, alsoCounts: beside, projects: [workDirs.get(group.name), group.name] });
        if (session) found.push(session);
      }
    }
    return { sessions: found, notRead: [] };
  },
};

async function workDirsByHash(file: string): Promise<Map<string, string>> {
  const meta = (await readSmallJson(file)) as { work_dirs?: { path?: unknown; kaos?: unknown }[] } | undefined;
  const out = new Map<string, string>();
  for (const wd of meta?.work_dirs ?? []) {
    if (typeof wd.path !== 'string') continue;
    const hash = createHash('md5').update(wd.path, 'utf8').digest('hex');
    out.set(wd.kaos === undefined || wd.kaos === 'local' ? hash : `${String(wd.kaos)}_${hash}`, wd.path);
  }
  return out;
}
