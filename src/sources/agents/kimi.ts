import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { sessionOf } from '../_agent.js';
import { headRecords, listDir, readHead, readSmallJson, statOf, timeOf } from '../_files.js';
import { envValue, folderList, pathsOf } from '../_paths.js';
import type { AgentSource, Location, Session } from '../types.js';

/**
 * Kimi's two agents, both listed as `kimi` (as tokscale counts Kimi Code's usage under its Kimi client).
 *
 * Kimi CLI keeps its data in `$KIMI_SHARE_DIR`, else `~/.kimi` (MoonshotAI/kimi-cli `src/kimi_cli/share.py`), every
 * platform; ccusage reads `$KIMI_DATA_DIR` in its place (a comma-separated list). A session is the folder
 * `sessions/<md5 of the work directory>/<session id>/` (`src/kimi_cli/metadata.py`, `session.py`): its
 * `context.jsonl` is read, with the rotated `context_N.jsonl` and the `wire.jsonl` beside it (counted with it); the
 * work directory is the `kimi.json` entry whose path hashes to the folder's name.
 *
 * Kimi Code keeps its data in `$KIMI_CODE_HOME`, else `~/.kimi-code` (MoonshotAI/kimi-code
 * `apps/kimi-code/src/utils/paths.ts` `getDataDir`). A session is `sessions/wd_<slug>_<hash>/<session id>/`
 * (`packages/agent-core/src/session/store/session-store.ts`): its agents' logs `agents/<agent id>/wire.jsonl` are read,
 * the main agent's first; its `state.json` names the work directory.
 */
export const kimi: AgentSource = {
  agent: 'kimi',
  locations(environment) {
    const paths = pathsOf(environment);
    const sessions = (dir: string, origin: string): Location => ({ agent: 'kimi', kind: 'sessions', dir: paths.join(dir, 'sessions'), origin, format: 'kimi' });
    const codeHome = envValue(environment, 'KIMI_CODE_HOME');
    const code: Location = {
      agent: 'kimi',
      kind: 'sessions',
      dir: paths.join(codeHome ?? paths.join(environment.home, '.kimi-code'), 'sessions'),
      origin: codeHome === undefined ? 'default' : 'KIMI_CODE_HOME',
      format: 'kimi-code',
    };
    const share = envValue(environment, 'KIMI_SHARE_DIR');
    if (share !== undefined) return [sessions(share, 'KIMI_SHARE_DIR'), code];
    const data = envValue(environment, 'KIMI_DATA_DIR');
    if (data !== undefined) return [...folderList(environment, data).map((dir) => sessions(dir, 'KIMI_DATA_DIR')), code];
    return [sessions(paths.join(environment.home, '.kimi'), 'default'), code];
  },
  async scan(location) {
    if (location.format === 'kimi-code') return { sessions: await kimiCodeSessions(location.dir), notRead: [] };
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

/** Kimi Code's sessions: each `<work dir key>/<session id>/` with its agents' wire logs, the main agent's first. */
async function kimiCodeSessions(dir: string): Promise<Session[]> {
  const found: Session[] = [];
  for (const group of await listDir(dir)) {
    if (!group.isDirectory()) continue;
    for (const entry of await listDir(join(dir, group.name))) {
      if (!entry.isDirectory()) continue;
      const sessionDir = join(dir, group.name, entry.name);
      const agents = (await listDir(join(sessionDir, 'agents'))).filter((a) => a.isDirectory()).map((a) => a.name);
      const ordered = [...agents.filter((a) => a === 'main'), ...agents.filter((a) => a !== 'main').sort()];
      const files = ordered.map((a) => join(sessionDir, 'agents', a, 'wire.jsonl'));
      if (files.length === 0) continue;
      // The journal's header records when it was created (milliseconds).
      const header = headRecords(await readHead(files[0])).find((r) => r.type === 'metadata');
      const state = (await readSmallJson(join(sessionDir, 'state.json'))) as { workDir?: unknown } | undefined;
      const workDir = typeof state?.workDir === 'string' ? state.workDir : undefined;
      const session = await sessionOf('kimi', files, { start: timeOf(header?.created_at), projects: [workDir, group.name] });
      if (session) found.push(session);
    }
  }
  return found;
}
