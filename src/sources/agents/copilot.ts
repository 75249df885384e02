import { join } from 'node:path';
import { sessionOf } from '../_agent.js';
import { headRecords, listDir, readHead, statOf, timeOf } from '../_files.js';
import { envValue, expandHome, pathsOf } from '../_paths.js';
import type { AgentSource, Location, Session } from '../types.js';

/**
 * GitHub Copilot CLI keeps its state in `~/.copilot`, which `COPILOT_HOME` relocates (docs.github.com, Copilot CLI
 * configuration directory reference; ccusage 20 reads `${COPILOT_HOME:-~/.copilot}/session-state` too). Each session
 * is `session-state/<id>/events.jsonl`; late-2025 builds wrote `session-state/<id>.jsonl`, and the first ones
 * `history-session-state/session_<id>_<ms>.json` (splitrail `src/analyzers/copilot_cli.rs` reads both folders).
 * `XDG_CONFIG_HOME`, which builds before 1.0.4 followed, is not (github/copilot-cli#1954).
 */
export const copilot: AgentSource = {
  agent: 'copilot',
  locations(environment) {
    const paths = pathsOf(environment);
    const configured = envValue(environment, 'COPILOT_HOME');
    const [home, origin] =
      configured !== undefined ? [expandHome(environment, configured), 'COPILOT_HOME'] : [paths.join(environment.home, '.copilot'), 'default'];
    return [
      { agent: 'copilot', kind: 'sessions', dir: paths.join(home, 'session-state'), origin, format: 'copilot' },
      { agent: 'copilot', kind: 'archived sessions', dir: paths.join(home, 'history-session-state'), origin, format: 'copilot' },
    ] satisfies Location[];
  },
  async scan(location) {
    const sessions: Session[] = [];
    const legacy = location.kind === 'archived sessions';
    for (const entry of await listDir(location.dir)) {
      let file: string | undefined;
      if (legacy) file = entry.isFile() && /^session_.+\.json$/.test(entry.name) ? join(location.dir, entry.name) : undefined;
      else if (entry.isFile() && entry.name.endsWith('.jsonl')) file = join(location.dir, entry.name);
      else if (entry.isDirectory()) {
        const events = join(location.dir, entry.name, 'events.jsonl');
        file = (await statOf(events))?.isFile() ? events : undefined;
      }
      if (file === undefined) continue;
      // The first event is `session.start {sessionId, startTime, context: {cwd}}`; a legacy session, one JSON document,
      // begins with its `sessionId` and `startTime` and records no folder.
      const head = await readHead(file);
      if (legacy) {
        const session = await sessionOf('copilot', [file], { start: timeOf(/"startTime"\s*:\s*"([^"]+)"/.exec(head)?.[1]), projects: [] });
        if (session) sessions.push(session);
        continue;
      }
      const start = headRecords(head).find((r) => r.type === 'session.start');
      const data = start !== undefined && typeof start.data === 'object' && start.data !== null ? (start.data as Record<string, unknown>) : {};
      const context = typeof data.context === 'object' && data.context !== null ? (data.context as Record<string, unknown>) : {};
      const cwd = typeof context.cwd === 'string' ? context.cwd : undefined;
      const session = await sessionOf('copilot', [file], { start: timeOf(data.startTime ?? start?.timestamp), projects: [cwd] });
      if (session) sessions.push(session);
    }
    return { sessions, notRead: [] };
  },
};
