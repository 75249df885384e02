import { join } from 'node:path';
import { sessionOf } from '../_agent.js';
import { headRecords, listDir, readHead, timeOf } from '../_files.js';
import { envValue, pathsOf } from '../_paths.js';
import type { AgentSource, Session } from '../types.js';

/**
 * Qwen Code records each chat to `<runtime dir>/projects/<sanitized project path>/chats/<session id>.jsonl`
 * (packages/core/src/config/storage.ts `getProjectDir`, services/chatRecordingService.ts): the runtime dir is
 * `QWEN_RUNTIME_DIR` when set (taken here when absolute: a relative one is resolved against Qwen's own working
 * folder), else `~/.qwen`.
 */
export const qwen: AgentSource = {
  agent: 'qwen',
  locations(environment) {
    const paths = pathsOf(environment);
    const runtime = envValue(environment, 'QWEN_RUNTIME_DIR');
    const custom = runtime !== undefined && paths.isAbsolute(runtime);
    const dir = paths.join(custom ? runtime : paths.join(environment.home, '.qwen'), 'projects');
    return [{ agent: 'qwen', kind: 'projects', dir, origin: custom ? 'QWEN_RUNTIME_DIR' : 'default', format: 'qwen' }];
  },
  async scan(location) {
    const sessions: Session[] = [];
    for (const project of await listDir(location.dir)) {
      if (!project.isDirectory()) continue;
      const chats = join(location.dir, project.name, 'chats');
      for (const entry of await listDir(chats)) {
        if (!entry.isFile() || !entry.name.endsWith('.jsonl')) continue;
        const file = join(chats, entry.name);
        // Every record carries its time and the project's folder (`cwd`).
        const [first] = headRecords(await readHead(file));
        const cwd = typeof first?.cwd === 'string' ? first.cwd : undefined;
        const session = await sessionOf('qwen', [file], { start: timeOf(first?.timestamp), projects: [project.name, cwd] });
        if (session) sessions.push(session);
      }
    }
    return { sessions, notRead: [] };
  },
};
