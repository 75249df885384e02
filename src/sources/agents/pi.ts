import { sessionOf } from '../_agent.js';
import { headRecords, readHead, timeOf, walkFiles } from '../_files.js';
import { envValue, expandHome, folderList, pathsOf } from '../_paths.js';
import type { AgentSource, Location, Session } from '../types.js';

/**
 * pi's coding agent writes each session to `<agent dir>/sessions/--<cwd with / as ->--/<time>_<id>.jsonl`
 * (badlogic/pi-mono packages/coding-agent/src/core/session-manager.ts `getDefaultSessionDir`), the agent dir being
 * PI_CODING_AGENT_DIR (`~` expanded) or `~/.pi/agent` (packages/coding-agent/src/config.ts `getAgentDir`, on every
 * platform). ccusage reads PI_AGENT_DIR instead, a comma-separated list of sessions folders: taken first when set.
 */
export const pi: AgentSource = {
  agent: 'pi',
  locations(environment) {
    const paths = pathsOf(environment);
    const at = (dir: string, origin: string): Location => ({ agent: 'pi', kind: 'sessions', dir, origin, format: 'pi' });
    const sessionsList = envValue(environment, 'PI_AGENT_DIR');
    if (sessionsList !== undefined) return folderList(environment, sessionsList).map((dir) => at(dir, 'PI_AGENT_DIR'));
    const agentDir = envValue(environment, 'PI_CODING_AGENT_DIR');
    if (agentDir !== undefined) return [at(paths.join(expandHome(environment, agentDir), 'sessions'), 'PI_CODING_AGENT_DIR')];
    return [at(paths.join(environment.home, '.pi', 'agent', 'sessions'), 'default')];
  },
  async scan(location) {
    const sessions: Session[] = [];
    for await (const file of walkFiles(location.dir, (name) => name.endsWith('.jsonl'))) {
      // The first line is the session header `{type: "session", id, timestamp, cwd}`.
      const [header] = headRecords(await readHead(file));
      const start = header?.type === 'session' ? timeOf(header.timestamp) : undefined;
      const cwd = header?.type === 'session' && typeof header.cwd === 'string' ? header.cwd : undefined;
      const session = await sessionOf('pi', [file], { start, projects: [cwd] });
      if (session) sessions.push(session);
    }
    return { sessions, notRead: [] };
  },
};
