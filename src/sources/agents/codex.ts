import { notReadOf, sessionOf } from '../_agent.js';
import { headRecords, readHead, statOf, timeOf, walkFiles } from '../_files.js';
import { envValue, folderList, pathsOf } from '../_paths.js';
import type { AgentSource, Location, Session } from '../types.js';

/**
 * Codex writes each session as a rollout, `<CODEX_HOME>/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`, and moves
 * archived ones to `<CODEX_HOME>/archived_sessions/` (codex-rs/rollout/src/lib.rs). CODEX_HOME defaults to `~/.codex`
 * (codex-rs/utils/home-dir); ccusage also takes a comma-separated list. Newer versions may compress a rollout to
 * `.jsonl.zst` (codex-rs/rollout/src/compression.rs): those are counted as not read, unless the plain file is there too.
 */
export const codex: AgentSource = {
  agent: 'codex',
  locations(environment) {
    const paths = pathsOf(environment);
    const configured = envValue(environment, 'CODEX_HOME');
    const homes: [string, string][] =
      configured !== undefined ? folderList(environment, configured).map((h) => [h, 'CODEX_HOME']) : [[paths.join(environment.home, '.codex'), 'default']];
    return homes.flatMap(([home, origin]): Location[] => [
      { agent: 'codex', kind: 'sessions', dir: paths.join(home, 'sessions'), origin, format: 'codex' },
      { agent: 'codex', kind: 'archived sessions', dir: paths.join(home, 'archived_sessions'), origin, format: 'codex' },
    ]);
  },
  async scan(location) {
    const sessions: Session[] = [];
    const compressed: string[] = [];
    for await (const file of walkFiles(location.dir, (name) => name.endsWith('.jsonl') || name.endsWith('.jsonl.zst'))) {
      if (file.endsWith('.zst')) {
        if (!(await statOf(file.slice(0, -'.zst'.length)))) compressed.push(file);
        continue;
      }
      const records = headRecords(await readHead(file));
      // The first line is the session's meta: `{type: "session_meta", payload: {timestamp, cwd}}`, or a 2025 rollout's bare `{id, timestamp}`.
      const meta = records[0]?.type === 'session_meta' && typeof records[0].payload === 'object' ? (records[0].payload as Record<string, unknown>) : records[0];
      const start = timeOf(meta?.timestamp) ?? timeOf(records[0]?.timestamp);
      const cwd = records.map((r) => (r.payload as Record<string, unknown> | undefined)?.cwd).find((c) => typeof c === 'string') as string | undefined;
      const session = await sessionOf('codex', [file], { start, projects: [cwd] });
      if (session) sessions.push(session);
    }
    return { sessions, notRead: await notReadOf(compressed, 'compressed rollouts (.jsonl.zst): decompress them with zstd -d to read them') };
  },
};
