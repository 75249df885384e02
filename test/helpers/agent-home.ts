import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { crushFixtureSessions, writeCrushDatabase } from './crush-database.js';
import { gooseFixtureSessions, writeGooseDatabase } from './goose-database.js';
import { otherSession, readExport, writeOpenCodeDatabase } from './opencode-database.js';
import { LONG_SESSION, longSessionHead } from './long-session.js';
import { BUNDLED, ROOT } from './paths.js';

const FIXTURES = join(ROOT, 'test', 'fixtures');
const CLAUDE = join(BUNDLED, 'claude-code');

/** The working directory every agent fixture under test/fixtures/ was recorded in (the Claude Code sessions: spotter's). */
export const TODO_CLI = '/home/dev/todo-cli';

/** Sessions the fake home holds, per agent, in the layout each agent writes (see buildAgentHome). */
export const HOME_SESSIONS = {
  'claude-code': 4,
  codex: 4,
  gemini: 3,
  cline: 1,
  'roo-code': 1,
  opencode: 2,
  kilo: 1,
  goose: 2,
  amp: 1,
  kimi: 1,
  droid: 1,
  qwen: 2,
  continue: 2,
  copilot: 3,
  crush: 2,
  zed: 2,
  hermes: 3,
} as const;

/**
 * Writes the session of `exportFile` (an `opencode export` document) as OpenCode's JSON storage under `storage`:
 * `session/<projectID>/<id>.json`, `message/<id>/<messageID>.json`, `part/<messageID>/<partID>.json`, each file
 * modified at `mtime` when given. Returns the session's info file.
 */
export function writeOpenCodeStorage(exportFile: string, storage: string, mtime?: Date): string {
  type Part = { id: string };
  const doc = JSON.parse(readFileSync(exportFile, 'utf8')) as { info: { id: string; projectID: string }; messages: { info: { id: string }; parts: Part[] }[] };
  const put = (path: string, value: unknown) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, JSON.stringify(value, null, 2));
    if (mtime) utimesSync(path, mtime, mtime);
  };
  const sessionFile = join(storage, 'session', doc.info.projectID, `${doc.info.id}.json`);
  put(sessionFile, doc.info);
  for (const m of doc.messages) {
    put(join(storage, 'message', doc.info.id, `${m.info.id}.json`), m.info);
    for (const p of m.parts) put(join(storage, 'part', m.info.id, `${p.id}.json`), p);
  }
  return sessionFile;
}

/**
 * A home folder laid out as each agent lays out its own (Linux, default environment), from the project's real and
 * fixture sessions: Claude Code's real sessions (datasets/bundled/claude-code, spotter, MIT) in `~/.claude/projects`
 * and `~/.config/claude/projects`, named by their session id as Claude Code names them; the Codex rollouts in
 * `~/.codex/sessions/YYYY/MM/DD/` and `archived_sessions/`; the Gemini CLI recordings in a hashed and a named
 * project folder of `~/.gemini/tmp`, with a checkpoint; the Cline and Roo Code tasks in VS Code's and VSCodium's
 * global storage; the OpenCode export written as its JSON storage and, under other ids, in OpenCode's and Kilo's
 * databases; the goose session file and, under another id, goose's database; Crush's project list and a project's store; an Amp thread; a Kimi CLI
 * session (its rotated context, its wire log and the share folder's `kimi.json`); a Factory Droid session and its
 * settings; the Qwen Code chats in `~/.qwen/projects/<project>/chats/`; the Continue sessions and their index in
 * `~/.continue/sessions/`; Copilot CLI sessions in its three layouts under `~/.copilot`; Zed's threads database and
 * Hermes Agent's state store. The files an agent keeps
 * beside its sessions (Cline's task history, Roo's task summary and index, Gemini's `.project_root`) follow the
 * agents' own types (docs/formats.md); a compressed Codex rollout (`.jsonl.zst`) stands for what tcompact does not read. Each
 * session file's modification time is the session's last recorded time (or its start plus ten minutes).
 *
 * `longSessionLines` keeps only the first lines of the long worktree session (2.7 MB, 2,385 lines): the same session,
 * as Claude Code leaves it part way through, with its start, its id, its folder and its subagents. Commands that replay
 * every session of the home (tune, eval, simulate) then take seconds instead of a minute, and find the same sessions.
 */
export function buildAgentHome(home: string, options: { longSessionLines?: number } = {}): string {
  const put = (path: string, from: string, mtime: string, lines?: number) => {
    const to = join(home, path);
    mkdirSync(dirname(to), { recursive: true });
    if (lines === undefined) copyFileSync(from, to);
    else writeFileSync(to, longSessionHead(lines));
    utimesSync(to, new Date(mtime), new Date(mtime));
  };
  const write = (path: string, content: string | Buffer) => {
    mkdirSync(dirname(join(home, path)), { recursive: true });
    writeFileSync(join(home, path), content);
  };

  const spotter = '.claude/projects/-home-marco-projects-spotter';
  put(`${spotter}/55604662-cf2a-4331-851a-ec234028f8ca.jsonl`, join(CLAUDE, 'short.jsonl'), '2026-02-10T21:16:12.381Z');
  put(`${spotter}/491e126e-1e71-469c-ade2-fcc8af567c74.jsonl`, join(CLAUDE, 'subagent.jsonl'), '2026-02-10T22:03:51.807Z');
  put(`${spotter}/d6e0bada-1959-4eec-a9d2-0bfade768d8f.jsonl`, join(CLAUDE, 'tool_heavy.jsonl'), '2026-02-10T22:59:46.748Z');
  const worktree = '.config/claude/projects/-home-USER-projects-spotter-worktrees-spotter-4te';
  const session = LONG_SESSION;
  put(`${worktree}/${session}.jsonl`, join(CLAUDE, `${session}.jsonl`), '2026-02-12T15:05:00.730Z', options.longSessionLines);
  for (const agent of ['agent-aac57f5.jsonl', 'agent-acompact-946d2b.jsonl']) {
    put(`${worktree}/${session}/subagents/${agent}`, join(CLAUDE, session, 'subagents', agent), '2026-02-12T14:48:36.518Z');
  }

  const codex = join(FIXTURES, 'codex');
  put(
    '.codex/archived_sessions/rollout-2025-08-20T13-20-47-5973b6c0-94b8-487b-a530-2aeb6098ae0e.jsonl',
    join(codex, 'rollout-2025-08-20T13-20-47-5973b6c0-94b8-487b-a530-2aeb6098ae0e.jsonl'),
    '2025-08-20T13:30:47Z',
  );
  put(
    '.codex/sessions/2025/10/29/rollout-2025-10-29T00-59-38-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl',
    join(codex, 'rollout-2025-10-29T00-59-38-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl'),
    '2025-10-29T01:09:38Z',
  );
  put(
    '.codex/sessions/2025/11/03/rollout-2025-11-03T09-12-01-0199b7d4-1f2e-7a31-9c55-0d6e2f4a8b90.jsonl',
    join(codex, 'rollout-2025-11-03T09-12-01-0199b7d4-1f2e-7a31-9c55-0d6e2f4a8b90.jsonl'),
    '2025-11-03T09:22:01Z',
  );
  put(
    '.codex/sessions/2026/03/02/rollout-2026-03-02T10-00-00-019cad3e-7b41-7c20-9e6d-3f5a8b2c1d90.jsonl',
    join(codex, 'rollout-2026-03-02T10-00-00-019cad3e-7b41-7c20-9e6d-3f5a8b2c1d90.jsonl'),
    '2026-03-02T10:10:00Z',
  );
  write(
    '.codex/sessions/2026/03/01/rollout-2026-03-01T08-00-00-019cad3e-0000-7000-8000-000000000000.jsonl.zst',
    Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0, 0]),
  );

  const gemini = join(FIXTURES, 'gemini');
  const hashed = `.gemini/tmp/${createHash('sha256').update(TODO_CLI).digest('hex')}`;
  put(`${hashed}/chats/session-2025-11-12T09-44-2f32182a.json`, join(gemini, 'chats', 'session-2025-11-12T09-44-2f32182a.json'), '2025-11-12T09:54:02Z');
  put(
    `${hashed}/checkpoints/2025-11-12T09_44_40_017Z-list.ts-replace.json`,
    join(gemini, 'checkpoints', '2025-11-12T09_44_40_017Z-list.ts-replace.json'),
    '2025-11-12T09:44:40Z',
  );
  put(
    '.gemini/tmp/todo-cli/chats/session-2026-05-02T10-15-8d582aea.jsonl',
    join(gemini, 'chats', 'session-2026-05-02T10-15-8d582aea.jsonl'),
    '2026-05-02T10:16:36.204Z',
  );
  write('.gemini/tmp/todo-cli/.project_root', `${TODO_CLI}\n`);
  write('.gemini/tmp/todo-cli/logs.json', '[]');
  mkdirSync(join(home, '.gemini/tmp/bin'), { recursive: true });

  const cline = '.config/Code/User/globalStorage/saoudrizwan.claude-dev';
  put(
    `${cline}/tasks/1762940642118/api_conversation_history.json`,
    join(FIXTURES, 'cline', 'tasks', '1762940642118', 'api_conversation_history.json'),
    '2025-11-12T09:54:02Z',
  );
  write(`${cline}/tasks/1762940642118/ui_messages.json`, '[]');
  const clineHistory = [
    { id: '1762940642118', ts: 1762940642118, task: 'Fix the crash', tokensIn: 0, tokensOut: 0, totalCost: 0, cwdOnTaskInitialization: TODO_CLI },
  ];
  write(`${cline}/state/taskHistory.json`, JSON.stringify(clineHistory));

  const roo = '.config/VSCodium/User/globalStorage/rooveterinaryinc.roo-cline/tasks';
  const rooTask = '0b7e5a34-2f1c-4d8e-9a6b-3c5d7e9f1a2b';
  put(`${roo}/${rooTask}/api_conversation_history.json`, join(FIXTURES, 'roo', 'tasks', rooTask, 'api_conversation_history.json'), '2025-11-20T10:10:00Z');
  const rooItem = {
    id: rooTask,
    number: 1,
    ts: Date.parse('2025-11-20T10:00:00Z'),
    task: 'Fix the crash',
    tokensIn: 0,
    tokensOut: 0,
    totalCost: 0,
    workspace: TODO_CLI,
  };
  write(`${roo}/${rooTask}/history_item.json`, JSON.stringify(rooItem));
  write(`${roo}/_index.json`, JSON.stringify({ version: 1, entries: [rooItem] }));

  const storage = join(home, '.local/share/opencode/storage');
  writeOpenCodeStorage(join(FIXTURES, 'opencode', 'ses_5b2e1c7d9ffeAbCdEf012345.json'), storage, new Date('2025-11-12T09:51:13.118Z'));
  // OpenCode's database and Kilo's hold the same session under other ids, a day and two days later (in the WAL).
  const exported = readExport(join(FIXTURES, 'opencode', 'ses_5b2e1c7d9ffeAbCdEf012345.json'));
  writeOpenCodeDatabase(join(home, '.local/share/opencode/opencode.db'), [otherSession(exported, 'Db1', TODO_CLI, 86_400_000)], { walFrom: 0 });
  writeOpenCodeDatabase(join(home, '.local/share/kilo/kilo.db'), [otherSession(exported, 'Kl1', TODO_CLI, 2 * 86_400_000)], { walFrom: 0 });

  put('.local/share/goose/sessions/20251112_094402.jsonl', join(FIXTURES, 'goose', '20251112_094402.jsonl'), '2025-11-12T09:54:02Z');
  // goose's store holds a later session, its last messages in the WAL (test/helpers/goose-database.ts).
  writeGooseDatabase(join(home, '.local/share/goose/sessions/sessions.db'), [gooseFixtureSessions()[1]], { walFrom: 20 });

  // Crush lists its projects in its global data folder; each project's store is in the project's `.crush` folder.
  const crushData = join(home, 'projects', 'todo-cli', '.crush');
  writeCrushDatabase(join(crushData, 'crush.db'), crushFixtureSessions(), { walFrom: 8 });
  write(
    '.local/share/crush/projects.json',
    JSON.stringify({ projects: [{ path: TODO_CLI, data_dir: crushData, last_accessed: '2026-02-03T10:11:46Z' }] }, null, 2),
  );

  const thread = 'T-019a3f52-8c1d-7e40-9b6a-2d5e8f1c3a70.json';
  put(`.local/share/amp/threads/${thread}`, join(FIXTURES, 'amp', 'threads', thread), '2026-03-10T09:10:00Z');

  const kimiSession = 'sessions/34a6993d67e48728f49d001d6f91d44c/8d2e4f60-1a3b-4c5d-9e7f-a0b1c2d3e4f5';
  for (const name of ['context_1.jsonl', 'context.jsonl', 'wire.jsonl'])
    put(`.kimi/${kimiSession}/${name}`, join(FIXTURES, 'kimi', kimiSession, name), '2026-04-03T10:10:00Z');
  put('.kimi/kimi.json', join(FIXTURES, 'kimi', 'kimi.json'), '2026-04-03T10:10:00Z');

  const droidSession = '-home-dev-todo-cli/a0b1c2d3-e4f5-4a6b-8c7d-0e1f2a3b4c5d';
  for (const name of ['.jsonl', '.settings.json'])
    put(`.factory/sessions/${droidSession}${name}`, join(FIXTURES, 'droid', 'sessions', `${droidSession}${name}`), '2026-05-04T09:10:00Z');

  const qwenChats = join(FIXTURES, 'qwen', 'projects', '-home-dev-projects-shop', 'chats');
  put(
    '.qwen/projects/-home-dev-projects-shop/chats/5b7e1c2a-3d4f-4a5b-8c6d-7e8f9a0b1c2d.jsonl',
    join(qwenChats, '5b7e1c2a-3d4f-4a5b-8c6d-7e8f9a0b1c2d.jsonl'),
    '2026-06-10T09:02:41Z',
  );
  put(
    '.qwen/projects/-home-dev-projects-shop/chats/8e2d4f6a-1b3c-4d5e-9f70-8a9b0c1d2e3f.jsonl',
    join(qwenChats, '8e2d4f6a-1b3c-4d5e-9f70-8a9b0c1d2e3f.jsonl'),
    '2026-06-11T14:01:24Z',
  );
  for (const [name, mtime] of [
    ['3f9a2c1e-7b4d-4e8f-a1c2-5d6e7f8a9b0c.json', '2025-10-09T09:00:00Z'],
    ['1f2e3d4c-5b6a-4789-8a9b-0c1d2e3f4a5b.json', '2025-10-09T10:00:00Z'],
    ['sessions.json', '2025-10-09T10:00:00Z'],
  ])
    put(`.continue/sessions/${name}`, join(FIXTURES, 'continue', 'sessions', name), mtime);

  const resumed = 'session-state/9a7e41d2-5c3b-4f60-8d19-6e2b0c4f7a38/events.jsonl';
  put(`.copilot/${resumed}`, join(FIXTURES, 'copilot', resumed), '2026-06-03T14:01:36Z');
  const flat = 'session-state/c51d7e08-2f4a-4b93-a6e0-7b8c9d0e1f23.jsonl';
  put(`.copilot/${flat}`, join(FIXTURES, 'copilot', flat), '2026-01-12T10:30:20Z');
  const legacy = 'history-session-state/session_e0b4c6d8-1a2b-4c3d-8e9f-0a1b2c3d4e5f_1758211451312.json';
  put(`.copilot/${legacy}`, join(FIXTURES, 'copilot', legacy), '2025-09-18T16:04:19.877Z');
  put('.local/share/zed/threads/threads.db', join(FIXTURES, 'zed', 'threads.db'), '2026-06-20T09:12:40Z');
  put('.hermes/state.db', join(FIXTURES, 'hermes', 'state.db'), '2026-06-10T10:13:20Z');
  return home;
}

/** A Linux environment with nothing set: only the home folder decides. */
export function linuxEnvironment(home: string, env: Record<string, string> = {}) {
  return { home, env, platform: 'linux' as const };
}
