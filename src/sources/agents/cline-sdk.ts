import { join } from 'node:path';
import { sessionOf } from '../_agent.js';
import { listDir, readSmallJson, timeOf } from '../_files.js';
import { envValue, pathsOf } from '../_paths.js';
import type { AgentSource, Location, Session, SourceEnvironment } from '../types.js';

/**
 * Cline's SDK (its CLI, and its VS Code extension since the SDK took over) keeps each session in
 * `<sessions>/<id>/<id>.messages.json`, a subagent's as `<agent id>.messages.json` beside it, with the session's
 * manifest `<id>.json` (cline sdk/packages/core/src/services/session-artifacts.ts). `<sessions>` is
 * CLINE_SESSION_DATA_DIR, else `<data>/sessions` with `<data>` CLINE_DATA_DIR, else `$CLINE_DIR/data`, else
 * `~/.cline/data` (sdk/packages/shared/src/storage/paths.ts resolveSessionDataDir).
 */
export function clineSdkLocation(environment: SourceEnvironment): Location {
  const paths = pathsOf(environment);
  const at = (dir: string, origin: string): Location => ({ agent: 'cline', kind: 'sessions', dir, origin, format: 'cline-sdk' });
  const sessions = envValue(environment, 'CLINE_SESSION_DATA_DIR');
  if (sessions !== undefined) return at(sessions, 'CLINE_SESSION_DATA_DIR');
  const data = envValue(environment, 'CLINE_DATA_DIR');
  if (data !== undefined) return at(paths.join(data, 'sessions'), 'CLINE_DATA_DIR');
  const dir = envValue(environment, 'CLINE_DIR');
  return at(paths.join(dir ?? paths.join(environment.home, '.cline'), 'data', 'sessions'), dir === undefined ? 'default' : 'CLINE_DIR');
}

/** The sessions of an SDK sessions folder: each messages file, the root session's first, its start and folder from the manifest. */
export async function clineSdkSessions(dir: string): Promise<Session[]> {
  const sessions: Session[] = [];
  for (const folder of await listDir(dir)) {
    if (!folder.isDirectory()) continue;
    const root = join(dir, folder.name);
    const manifest = (await readSmallJson(join(root, `${folder.name}.json`))) as Record<string, unknown> | undefined;
    const projects = [manifest?.cwd, manifest?.workspace_root].map((p) => (typeof p === 'string' ? p : undefined));
    const names = (await listDir(root)).filter((e) => e.isFile() && e.name.endsWith('.messages.json')).map((e) => e.name);
    const own = `${folder.name}.messages.json`;
    for (const name of names.sort((a, b) => (a === own ? -1 : b === own ? 1 : a < b ? -1 : a > b ? 1 : 0))) {
      const start = name === own ? timeOf(manifest?.started_at) : undefined;
      const session = await sessionOf('cline', [join(root, name)], { start, projects });
      if (session) sessions.push(session);
    }
  }
  return sessions;
}

/** An agent source that also lists the SDK's sessions folder. */
export function withSdkSessions(source: AgentSource): AgentSource {
  return {
    agent: source.agent,
    locations: (environment) => [...source.locations(environment), clineSdkLocation(environment)],
    scan: async (location) => (location.format === 'cline-sdk' ? { sessions: await clineSdkSessions(location.dir), notRead: [] } : source.scan(location)),
  };
}
