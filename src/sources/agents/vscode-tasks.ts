import { dirname, join } from 'node:path';
import { sessionOf } from '../_agent.js';
import { listDir, readHead, readSmallJson, timeOf } from '../_files.js';
import { envValue, pathsOf } from '../_paths.js';
import { globalStorageDirs } from '../_vscode.js';
import { withSdkSessions } from './cline-sdk.js';
import type { AgentName, AgentSource, Location, Session, SourceEnvironment } from '../types.js';

/**
 * Cline, Roo Code and Kilo Code, VS Code extensions, keep each task in `<global storage>/<extension id>/tasks/<task id>/
 * api_conversation_history.json` (cline: apps/vscode/src/core/storage/disk.ts; Roo-Code: src/utils/storage.ts). Roo Code
 * can be told to keep them elsewhere (its `customStoragePath` setting, not read here: pass that folder as an input).
 */
function extensionTasks(agent: AgentName, extensionId: string, extra: (environment: SourceEnvironment) => [string, string][]): AgentSource {
  return {
    agent,
    locations(environment) {
      const paths = pathsOf(environment);
      const inVsCode = globalStorageDirs(environment).map(([dir, origin]): [string, string] => [paths.join(dir, extensionId, 'tasks'), origin]);
      return [...inVsCode, ...extra(environment)].map(([dir, origin]): Location => ({ agent, kind: 'tasks', dir, origin, format: 'cline' }));
    },
    async scan(location) {
      // Cline lists its tasks, with the folder each started in, in `<storage>/state/taskHistory.json`.
      const history = await readSmallJson(join(dirname(location.dir), 'state', 'taskHistory.json'));
      const cwdOf = new Map<string, string>();
      if (Array.isArray(history))
        for (const h of history) if (typeof h?.id === 'string' && typeof h.cwdOnTaskInitialization === 'string') cwdOf.set(h.id, h.cwdOnTaskInitialization);
      const sessions: Session[] = [];
      for (const task of await listDir(location.dir)) {
        if (!task.isDirectory()) continue;
        const dir = join(location.dir, task.name);
        // Roo Code writes each task's summary, with its workspace, beside it (src/core/task-persistence/TaskHistoryStore.ts).
        const item = (await readSmallJson(join(dir, 'history_item.json'))) as Record<string, unknown> | undefined;
        const projects = [cwdOf.get(task.name), typeof item?.workspace === 'string' ? item.workspace : undefined];
        // A task whose history is gone still has its UI log: a usage-only session (formats/cline-ui-log.ts).
        let session: Session | undefined;
        for (const file of [join(dir, 'api_conversation_history.json'), join(dir, 'ui_messages.json')]) {
          const start = timeOf(item?.ts) ?? taskIdTime(task.name) ?? firstMessageTime(await readHead(file));
          session = await sessionOf(agent, [file], { start, projects });
          if (session) break;
        }
        if (session) sessions.push(session);
      }
      return { sessions, notRead: [] };
    },
  };
}

/** Cline names a task after the time it started, in ms (`Date.now()`). */
function taskIdTime(id: string): number | undefined {
  return /^\d{12,14}$/.test(id) ? timeOf(Number(id)) : undefined;
}

/** The `ts` (ms) of a history's first message, near its top. */
function firstMessageTime(head: string): number | undefined {
  const m = /"ts"\s*:\s*(\d{12,14})/.exec(head);
  return m ? timeOf(Number(m[1])) : undefined;
}

/**
 * Cline: `saoudrizwan.claude-dev` in VS Code, and the data folder its CLI and JetBrains plugin share: CLINE_DATA_DIR,
 * else `$CLINE_DIR/data`, else `~/.cline/data` (apps/vscode/src/shared/storage/storage-context.ts), same layout; and
 * the sessions of Cline's SDK (cline-sdk.ts).
 */
export const cline = withSdkSessions(
  extensionTasks('cline', 'saoudrizwan.claude-dev', (environment) => {
    const paths = pathsOf(environment);
    const data = envValue(environment, 'CLINE_DATA_DIR');
    if (data !== undefined) return [[paths.join(data, 'tasks'), 'CLINE_DATA_DIR']];
    const dir = envValue(environment, 'CLINE_DIR');
    return [[paths.join(dir ?? paths.join(environment.home, '.cline'), 'data', 'tasks'), dir === undefined ? 'default' : 'CLINE_DIR']];
  }),
);

/** Roo Code: `rooveterinaryinc.roo-cline` (publisher RooVeterinaryInc, name roo-cline, lowercased by VS Code). */
export const rooCode = extensionTasks('roo-code', 'rooveterinaryinc.roo-cline', () => []);

/**
 * Kilo Code's VS Code extension before it moved to OpenCode's store (`kilocode.kilo-code`, a Roo Code fork: the same
 * task folders). Its CLI and newer extension keep `kilo.db`, the `kilo` agent.
 */
export const kiloCode = extensionTasks('kilo-code', 'kilocode.kilo-code', () => []);
