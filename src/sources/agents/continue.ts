import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sessionOf } from '../_agent.js';
import { listDir, readHead, timeOf } from '../_files.js';
import { envValue, pathsOf } from '../_paths.js';
import type { AgentSource, Session } from '../types.js';

/**
 * Continue (its IDE extensions and its CLI, `cn`) saves each session to `<global dir>/sessions/<session id>.json`
 * beside the index `sessions.json` (core/util/paths.ts `getSessionFilePath`, `getSessionsListPath`;
 * extensions/cli/src/session.ts): the global dir is `CONTINUE_GLOBAL_DIR` when set (taken here when absolute), else
 * `~/.continue`. A session's start is its `dateCreated` in the index, the session file recording no time of its own.
 */
export const continueAgent: AgentSource = {
  agent: 'continue',
  locations(environment) {
    const paths = pathsOf(environment);
    const global = envValue(environment, 'CONTINUE_GLOBAL_DIR');
    const custom = global !== undefined && paths.isAbsolute(global);
    const dir = paths.join(custom ? global : paths.join(environment.home, '.continue'), 'sessions');
    return [{ agent: 'continue', kind: 'sessions', dir, origin: custom ? 'CONTINUE_GLOBAL_DIR' : 'default', format: 'continue' }];
  },
  async scan(location) {
    const sessions: Session[] = [];
    const created = await createdTimes(join(location.dir, 'sessions.json'));
    for (const entry of await listDir(location.dir)) {
      if (!entry.isFile() || !entry.name.endsWith('.json') || entry.name === 'sessions.json') continue;
      const file = join(location.dir, entry.name);
      const head = await readHead(file);
      const workspace = /"workspaceDirectory":\s*"((?:[^"\\]|\\.)*)"/.exec(head)?.[1];
      const session = await sessionOf('continue', [file], {
        start: created.get(entry.name.slice(0, -'.json'.length)),
        projects: [workspace === undefined ? undefined : (JSON.parse(`"${workspace}"`) as string)],
      });
      if (session) sessions.push(session);
    }
    return { sessions, notRead: [] };
  },
};

/** When each session started: the index's `dateCreated` (milliseconds, as a string), by session id. */
async function createdTimes(index: string): Promise<Map<string, number>> {
  const times = new Map<string, number>();
  let list: unknown;
  try {
    list = JSON.parse(await readFile(index, 'utf8'));
  } catch {
    return times;
  }
  if (!Array.isArray(list)) return times;
  for (const item of list as Record<string, unknown>[]) {
    const time = timeOf(Number(item?.dateCreated));
    if (typeof item?.sessionId === 'string' && time !== undefined) times.set(item.sessionId, time);
  }
  return times;
}
