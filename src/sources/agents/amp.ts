import { join } from 'node:path';
import { sessionOf } from '../_agent.js';
import { listDir, readHead, timeOf } from '../_files.js';
import { envValue, folderList, pathsOf, xdgHome } from '../_paths.js';
import type { AgentSource, Location, Session } from '../types.js';

/**
 * Amp keeps each thread as one JSON file, `<data>/threads/T-<uuid>.json`, `<data>` being `~/.local/share/amp` (macOS
 * too). Amp's client is not open source: ccusage (`rust/crates/ccusage/src/adapter/amp/paths.rs`) takes `AMP_DATA_DIR`
 * (a comma-separated list) in its place, and cross_agent_session_resumer (`src/providers/amp.rs`) has Amp follow
 * `XDG_DATA_HOME`. Both are honoured, in that order.
 */
export const amp: AgentSource = {
  agent: 'amp',
  locations(environment) {
    const paths = pathsOf(environment);
    const threads = (dir: string, origin: string): Location => ({ agent: 'amp', kind: 'threads', dir: paths.join(dir, 'threads'), origin, format: 'amp' });
    const configured = envValue(environment, 'AMP_DATA_DIR');
    if (configured !== undefined) return folderList(environment, configured).map((dir) => threads(dir, 'AMP_DATA_DIR'));
    const [data, origin] = xdgHome(environment, 'XDG_DATA_HOME', '.local/share');
    return [threads(paths.join(data, 'amp'), origin)];
  },
  async scan(location) {
    const sessions: Session[] = [];
    for (const entry of await listDir(location.dir)) {
      if (!entry.isFile() || !/^T-.+\.json$/.test(entry.name)) continue;
      const file = join(location.dir, entry.name);
      // A thread is one JSON document; its start (`created`, ms) and folder come first in the files Amp writes.
      const head = await readHead(file);
      const created = /"created"\s*:\s*(\d+)/.exec(head)?.[1];
      const cwd = /"cwd"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(head)?.[1] ?? /"uri"\s*:\s*"file:\/\/((?:[^"\\]|\\.)*)"/.exec(head)?.[1];
      const session = await sessionOf('amp', [file], { start: timeOf(created === undefined ? undefined : Number(created)), projects: [unescape(cwd)] });
      if (session) sessions.push(session);
    }
    return { sessions, notRead: [] };
  },
};

function unescape(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(`"${text}"`) as string;
  } catch {
    return text;
  }
}
