import { join } from 'node:path';
import { sessionOf } from '../_agent.js';
import { headRecords, listDir, readHead, timeOf } from '../_files.js';
import { envValue, folderList, pathsOf, xdgHome } from '../_paths.js';
import type { AgentSource, Location, Session } from '../types.js';

/**
 * Claude Code writes each session to `<config>/projects/<project>/<session id>.jsonl`, the project folder named after
 * the working directory (`/home/me/app` -> `-home-me-app`), and a session's subagents to `<session id>/subagents/
 * agent-<id>.jsonl` beside it (older versions: `agent-<id>.jsonl` in the project folder). `<config>` is
 * CLAUDE_CONFIG_DIR when set (ccusage also takes a comma-separated list, and the `projects` folder itself), else both
 * `$XDG_CONFIG_HOME/claude` (`~/.config/claude`) and `~/.claude`.
 */
export const claudeCode: AgentSource = {
  agent: 'claude-code',
  locations(environment) {
    const paths = pathsOf(environment);
    const at = (dir: string, origin: string): Location => ({ agent: 'claude-code', kind: 'projects', dir, origin, format: 'claude-code' });
    const configured = envValue(environment, 'CLAUDE_CONFIG_DIR');
    if (configured !== undefined) {
      return folderList(environment, configured).map((dir) => at(paths.basename(dir) === 'projects' ? dir : paths.join(dir, 'projects'), 'CLAUDE_CONFIG_DIR'));
    }
    const [config, origin] = xdgHome(environment, 'XDG_CONFIG_HOME', '.config');
    return [at(paths.join(config, 'claude', 'projects'), origin), at(paths.join(environment.home, '.claude', 'projects'), 'default')];
  },
  async scan(location) {
    const sessions: Session[] = [];
    for (const project of await listDir(location.dir)) {
      if (!project.isDirectory()) continue;
      const dir = join(location.dir, project.name);
      const entries = await listDir(dir);
      const mains = entries.filter((e) => e.isFile() && e.name.endsWith('.jsonl')).map((e) => e.name.slice(0, -'.jsonl'.length));
      // Session folders whose main file is gone still hold their subagents' transcripts.
      const orphans = entries.filter((e) => e.isDirectory() && !mains.includes(e.name)).map((e) => e.name);
      for (const id of [...mains, ...orphans]) {
        const subagents = (await listDir(join(dir, id, 'subagents')))
          .filter((e) => e.isFile() && e.name.endsWith('.jsonl'))
          .map((e) => join(dir, id, 'subagents', e.name));
        const files = mains.includes(id) ? [join(dir, `${id}.jsonl`), ...subagents] : subagents;
        if (files.length === 0) continue;
        const records = headRecords(await readHead(files[0]));
        const start = records.map((r) => timeOf(r.timestamp)).find((t) => t !== undefined);
        const cwd = records.map((r) => r.cwd).find((c) => typeof c === 'string') as string | undefined;
        const session = await sessionOf('claude-code', files, { start, projects: [project.name, cwd] });
        if (session) sessions.push(session);
      }
    }
    return { sessions, notRead: [] };
  },
};
