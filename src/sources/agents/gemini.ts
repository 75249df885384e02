import { join } from 'node:path';
import { sessionOf } from '../_agent.js';
import { listDir, readHead, readSmallText, timeOf } from '../_files.js';
import { envValue, pathsOf } from '../_paths.js';
import type { AgentSource, Session } from '../types.js';

/**
 * Gemini CLI keeps each project's files in `~/.gemini/tmp/<project>/` (packages/core/src/config/storage.ts), where
 * `<project>` is the SHA-256 of the project's path in older versions and a short name now, with the path itself in
 * `.project_root` (config/projectRegistry.ts). Chats are recorded to `chats/session-<time>-<id>.json` (older) or
 * `.jsonl`, a subagent's to `chats/<parent session id>/<id>.jsonl` (services/chatRecordingService.ts); checkpoints,
 * when checkpointing is on, to `checkpoints/*.json` (they repeat the chat up to a tool call). GEMINI_CLI_HOME replaces
 * the home folder (utils/paths.ts).
 */
export const gemini: AgentSource = {
  agent: 'gemini',
  locations(environment) {
    const paths = pathsOf(environment);
    const base = envValue(environment, 'GEMINI_CLI_HOME');
    const dir = paths.join(base ?? environment.home, '.gemini', 'tmp');
    const origin = base === undefined ? 'default' : 'GEMINI_CLI_HOME';
    return [
      { agent: 'gemini', kind: 'chats', dir, origin, format: 'gemini' },
      { agent: 'gemini', kind: 'checkpoints', dir, origin, format: 'gemini-checkpoint' },
    ];
  },
  async scan(location) {
    const sessions: Session[] = [];
    for (const project of await listDir(location.dir)) {
      if (!project.isDirectory()) continue;
      const dir = join(location.dir, project.name);
      const projects = [project.name, await readSmallText(join(dir, '.project_root'))];
      for (const file of location.kind === 'chats' ? await chatFiles(join(dir, 'chats')) : await checkpointFiles(join(dir, 'checkpoints'))) {
        const start = location.kind === 'chats' ? recordedStart(await readHead(file)) : checkpointTime(file);
        const session = await sessionOf('gemini', [file], { start, projects });
        if (session) sessions.push(session);
      }
    }
    return { sessions, notRead: [] };
  },
};

async function chatFiles(dir: string): Promise<string[]> {
  const entries = await listDir(dir);
  const own = entries.filter((e) => e.isFile() && /\.jsonl?$/.test(e.name)).map((e) => join(dir, e.name));
  const subagents: string[] = [];
  for (const e of entries) {
    if (!e.isDirectory()) continue;
    for (const f of await listDir(join(dir, e.name))) if (f.isFile() && f.name.endsWith('.jsonl')) subagents.push(join(dir, e.name, f.name));
  }
  return [...own, ...subagents];
}

async function checkpointFiles(dir: string): Promise<string[]> {
  return (await listDir(dir)).filter((e) => e.isFile() && e.name.endsWith('.json')).map((e) => join(dir, e.name));
}

/** A recording's `startTime`, the first one in its head (the metadata line, or near the top of a whole document). */
function recordedStart(head: string): number | undefined {
  return timeOf(/"startTime"\s*:\s*"([^"]+)"/.exec(head)?.[1]);
}

/**
 * A checkpoint's name starts with its UTC time, `:` and `.` replaced (utils/checkpointUtils.ts):
 * `2025-11-12T09-44-40_017Z-...`, or `2025-11-12T09_44_40_017Z-...` in older versions.
 */
function checkpointTime(file: string): number | undefined {
  const m = /(\d{4}-\d{2}-\d{2}T\d{2})[-_](\d{2})[-_](\d{2})_(\d{3})Z[^\\/]*$/.exec(file);
  return m ? timeOf(`${m[1]}:${m[2]}:${m[3]}.${m[4]}Z`) : undefined;
}
