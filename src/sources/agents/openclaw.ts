import { join } from 'node:path';
import { sessionOf } from '../_agent.js';
import { headRecords, listDir, readHead, timeOf } from '../_files.js';
import { envValue, expandHome, folderList, pathsOf } from '../_paths.js';
import type { AgentSource, Location, Session } from '../types.js';

/** OpenClaw's state folders before it was renamed (openclaw/openclaw src/config/paths.ts `LEGACY_STATE_DIRNAMES`). */
const STATE_DIRS = ['.openclaw', '.clawdbot', '.moltbot', '.moldbot'];

/**
 * A transcript OpenClaw counts as usage: `<id>.jsonl`, and the archives of a reset or a deletion,
 * `<id>.jsonl.reset.<time>` / `.deleted.<time>` (src/config/sessions/artifacts.ts). Left out: its `.bak.` archives
 * and the copies it makes of a transcript before compacting it, `<id>.checkpoint.<uuid>.jsonl` (a copy of the file's
 * lines up to then, which the transcript itself goes on holding).
 */
const TRANSCRIPT = /\.jsonl(\.(reset|deleted)\.\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(\.\d{3})?Z)?$/;
const CHECKPOINT = /\.checkpoint\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$/i;

/**
 * OpenClaw keeps each agent's sessions in `<state>/agents/<agent>/sessions/` (src/config/sessions/paths.ts), pi's
 * files written by pi's session manager, beside `sessions.json` (the index). `<state>` is OPENCLAW_STATE_DIR (or the
 * older CLAWDBOT_STATE_DIR), else `~/.openclaw`, or one of the folders of its former names, `~/.clawdbot`,
 * `~/.moltbot`, `~/.moldbot` (src/config/paths.ts `resolveStateDir`; `~` is OPENCLAW_HOME when set). ccusage reads
 * OPENCLAW_DIR, a comma-separated list of state folders: taken first when set.
 */
export const openclaw: AgentSource = {
  agent: 'openclaw',
  locations(environment) {
    const paths = pathsOf(environment);
    const at = (state: string, origin: string): Location => ({
      agent: 'openclaw',
      kind: 'sessions',
      dir: paths.join(state, 'agents'),
      origin,
      format: 'openclaw',
    });
    const list = envValue(environment, 'OPENCLAW_DIR');
    if (list !== undefined) return folderList(environment, list).map((dir) => at(dir, 'OPENCLAW_DIR'));
    for (const name of ['OPENCLAW_STATE_DIR', 'CLAWDBOT_STATE_DIR']) {
      const state = envValue(environment, name);
      if (state !== undefined) return [at(expandHome(environment, state), name)];
    }
    const configuredHome = envValue(environment, 'OPENCLAW_HOME');
    const home = configuredHome !== undefined ? expandHome(environment, configuredHome) : environment.home;
    return STATE_DIRS.map((dir) => at(paths.join(home, dir), configuredHome !== undefined ? 'OPENCLAW_HOME' : 'default'));
  },
  async scan(location) {
    const sessions: Session[] = [];
    for (const agent of await listDir(location.dir)) {
      if (!agent.isDirectory()) continue;
      const dir = join(location.dir, agent.name, 'sessions');
      for (const entry of await listDir(dir)) {
        if (!entry.isFile() || !TRANSCRIPT.test(entry.name) || CHECKPOINT.test(entry.name)) continue;
        const file = join(dir, entry.name);
        const [header] = headRecords(await readHead(file));
        const start = header?.type === 'session' ? timeOf(header.timestamp) : undefined;
        const cwd = header?.type === 'session' && typeof header.cwd === 'string' ? header.cwd : undefined;
        const session = await sessionOf('openclaw', [file], { start, projects: [agent.name, cwd] });
        if (session) sessions.push(session);
      }
    }
    return { sessions, notRead: [] };
  },
};
