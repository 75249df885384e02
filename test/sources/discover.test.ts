import { cpSync, mkdirSync, renameSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { discoverInputs } from '../../src/sources/discover.js';
import { parseSourceFilters } from '../../src/sources/filters.js';
import type { SourceSummary } from '../../src/sources/types.js';
import { HOME_SESSIONS, buildAgentHome, linuxEnvironment } from '../helpers/agent-home.js';
import { tempDir } from '../helpers/temp-dir.js';

const perAgent = (found: readonly SourceSummary[]): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const s of found) out[s.agent] = (out[s.agent] ?? 0) + s.sessions;
  return out;
};

const row = (s: SourceSummary, home: string) =>
  `${s.agent} ${s.kind} ${s.folder.replace(home, '~')} ${s.sessions} ${s.first?.slice(0, 10)} ${s.last?.slice(0, 10)}`;

describe('discoverInputs', () => {
  // One home for the tests that only read it; those that move its folders build their own.
  let home: string;
  beforeAll(() => {
    home = buildAgentHome(tempDir('home'));
  });

  it("finds every agent's sessions in a home laid out as each agent lays it out", async () => {
    const { found, inputs } = await discoverInputs(linuxEnvironment(home));
    expect(perAgent(found)).toEqual(HOME_SESSIONS);
    expect(found.map((s) => row(s, home))).toEqual([
      'claude-code projects ~/.config/claude/projects 1 2026-02-12 2026-02-12',
      'claude-code projects ~/.claude/projects 3 2026-02-10 2026-02-10',
      'codex sessions ~/.codex/sessions 3 2025-10-29 2026-03-02',
      'codex archived sessions ~/.codex/archived_sessions 1 2025-08-20 2025-08-20',
      'gemini chats ~/.gemini/tmp 2 2025-11-12 2026-05-02',
      'gemini checkpoints ~/.gemini/tmp 1 2025-11-12 2025-11-12',
      'cline tasks ~/.config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks 1 2025-11-12 2025-11-12',
      'roo-code tasks ~/.config/VSCodium/User/globalStorage/rooveterinaryinc.roo-cline/tasks 1 2025-11-20 2025-11-20',
      'opencode database ~/.local/share/opencode 1 2025-11-13 2025-11-13',
      'opencode storage ~/.local/share/opencode 1 2025-11-12 2025-11-12',
      'kilo database ~/.local/share/kilo 1 2025-11-14 2025-11-14',
      'goose database ~/.local/share/goose/sessions 1 2025-11-13 2025-11-13',
      'goose sessions ~/.local/share/goose/sessions 1 2025-11-12 2025-11-12',
      'amp threads ~/.local/share/amp/threads 1 2026-03-10 2026-03-10',
      'kimi sessions ~/.kimi/sessions 1 2026-04-03 2026-04-03',
      'droid sessions ~/.factory/sessions 1 2026-05-04 2026-05-04',
      'qwen projects ~/.qwen/projects 2 2026-06-10 2026-06-11',
      'continue sessions ~/.continue/sessions 2 2025-10-09 2025-10-09',
      'copilot sessions ~/.copilot/session-state 2 2026-01-12 2026-06-03',
      'copilot archived sessions ~/.copilot/history-session-state 1 2025-09-18 2025-09-18',
      'crush projects ~/.local/share/crush 2 2026-02-03 2026-02-03',
      'zed database ~/.local/share/zed/threads 2 2025-07-02 2026-06-20',
      'hermes database ~/.hermes 3 2026-06-09 2026-06-10',
    ]);
    // A Claude Code session is its file, then its subagents'.
    expect(inputs.filter((f) => f.includes('ae4a77f8')).map((f) => f.slice(home.length))).toEqual([
      '/.config/claude/projects/-home-USER-projects-spotter-worktrees-spotter-4te/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl',
      '/.config/claude/projects/-home-USER-projects-spotter-worktrees-spotter-4te/ae4a77f8-aedd-4bc1-888f-c94edc91af04/subagents/agent-aac57f5.jsonl',
      '/.config/claude/projects/-home-USER-projects-spotter-worktrees-spotter-4te/ae4a77f8-aedd-4bc1-888f-c94edc91af04/subagents/agent-acompact-946d2b.jsonl',
    ]);
    expect(inputs).toHaveLength(33);
  });

  it("dates each folder's first session by the sessions' own recorded start and its last by the files' modification times", async () => {
    const { found } = await discoverInputs(linuxEnvironment(home));
    expect(new Set(found.map((s) => `${s.firstFrom}/${s.lastFrom}`))).toEqual(new Set(['session/file']));
    const claude = found.find((s) => s.folder.endsWith('/.claude/projects'))!;
    // The last to the second: file systems keep modification times at their own precision.
    expect([claude.first, claude.last!.slice(0, 19)]).toEqual(['2026-02-10T21:11:52.438Z', '2026-02-10T22:59:46']);
  });

  it('counts what it cannot read (compressed rollouts) apart, with the reason', async () => {
    const { found } = await discoverInputs(linuxEnvironment(home));
    expect(found.flatMap((s) => (s.notRead ?? []).map((n) => `${s.agent} ${n.files} ${n.reason.split(':')[0]}`))).toEqual([
      'codex 1 compressed rollouts (.jsonl.zst)',
    ]);
  });

  it('narrows to the agents asked for, skipping the others unread', async () => {
    const { found, searched } = await discoverInputs({ ...linuxEnvironment(home), filters: parseSourceFilters({ agent: ['codex', 'goose'] }) });
    expect(perAgent(found)).toEqual({ codex: 4, goose: 2 });
    expect(new Set(searched.map((l) => l.agent))).toEqual(new Set(['codex', 'goose']));
  });

  it('narrows to the sessions written on or after --since and started on or before --until', async () => {
    const since = await discoverInputs({ ...linuxEnvironment(home), filters: parseSourceFilters({ since: '2026-01-01' }) });
    expect(perAgent(since.found)).toEqual({
      'claude-code': 4,
      codex: 1,
      gemini: 1,
      cline: 0,
      'roo-code': 0,
      opencode: 0,
      kilo: 0,
      goose: 0,
      amp: 1,
      kimi: 1,
      droid: 1,
      qwen: 2,
      continue: 0,
      copilot: 2,
      crush: 2,
      zed: 1,
      hermes: 3,
    });
    const until = await discoverInputs({ ...linuxEnvironment(home), filters: parseSourceFilters({ until: '2025-10-31' }) });
    expect(perAgent(until.found)).toEqual({
      'claude-code': 0,
      codex: 2,
      gemini: 0,
      cline: 0,
      'roo-code': 0,
      opencode: 0,
      kilo: 0,
      goose: 0,
      amp: 0,
      kimi: 0,
      droid: 0,
      qwen: 0,
      continue: 2,
      copilot: 1,
      crush: 0,
      zed: 1,
      hermes: 0,
    });
    const day = await discoverInputs({ ...linuxEnvironment(home), filters: parseSourceFilters({ since: '2025-11-12', until: '2025-11-12' }) });
    // OpenCode's database session is a day later, Kilo's two: each is selected inside its store by its own times.
    expect(perAgent(day.found)).toEqual({
      'claude-code': 0,
      codex: 0,
      gemini: 2,
      cline: 1,
      'roo-code': 0,
      opencode: 1,
      kilo: 0,
      goose: 1,
      amp: 0,
      kimi: 0,
      droid: 0,
      qwen: 0,
      continue: 0,
      copilot: 0,
      crush: 0,
      zed: 0,
      hermes: 0,
    });
  });

  it("narrows to a project: Claude Code's project folder or working directory, the others' recorded folder", async () => {
    const spotter = await discoverInputs({ ...linuxEnvironment(home), filters: parseSourceFilters({ project: 'Spotter' }) });
    expect(perAgent(spotter.found)).toEqual({
      'claude-code': 4,
      codex: 0,
      gemini: 0,
      cline: 0,
      'roo-code': 0,
      opencode: 0,
      kilo: 0,
      goose: 0,
      amp: 0,
      kimi: 0,
      droid: 0,
      qwen: 0,
      continue: 0,
      copilot: 0,
      crush: 0,
      zed: 0,
      hermes: 0,
    });
    const worktree = await discoverInputs({ ...linuxEnvironment(home), filters: parseSourceFilters({ project: 'spotter-4te' }) });
    expect(perAgent(worktree.found)['claude-code']).toBe(1);
    const todo = await discoverInputs({ ...linuxEnvironment(home), filters: parseSourceFilters({ project: '/home/dev/todo-cli' }) });
    // Two Codex rollouts ran in /home/dev/api, the 2025 one records no working directory; Gemini's hashed project
    // folder has no .project_root, so only its named one matches.
    expect(perAgent(todo.found)).toEqual({
      'claude-code': 0,
      codex: 1,
      gemini: 1,
      cline: 1,
      'roo-code': 1,
      opencode: 2,
      kilo: 1,
      goose: 1,
      amp: 1,
      kimi: 1,
      droid: 1,
      qwen: 0,
      continue: 0,
      copilot: 0,
      crush: 2,
      zed: 1,
      hermes: 0,
    });
    const api = await discoverInputs({ ...linuxEnvironment(home), filters: parseSourceFilters({ project: '/home/dev/api' }) });
    expect(perAgent(api.found)).toEqual({
      'claude-code': 0,
      codex: 2,
      gemini: 0,
      cline: 0,
      'roo-code': 0,
      opencode: 0,
      kilo: 0,
      goose: 1,
      amp: 0,
      kimi: 0,
      droid: 0,
      qwen: 0,
      continue: 0,
      copilot: 0,
      crush: 0,
      zed: 0,
      hermes: 0,
    });
  });

  it('reads CLAUDE_CONFIG_DIR instead of the default folders, as a comma-separated list, a projects folder itself included', async () => {
    const home = buildAgentHome(tempDir('home'));
    const elsewhere = join(tempDir('claude-elsewhere'), 'work');
    mkdirSync(elsewhere);
    renameSync(join(home, '.claude'), join(elsewhere, 'claude'));
    const env = { CLAUDE_CONFIG_DIR: join(elsewhere, 'claude') };
    const one = await discoverInputs({ ...linuxEnvironment(home, env), filters: parseSourceFilters({ agent: ['claude-code'] }) });
    expect(one.found.map((s) => [s.folder, s.origin, s.sessions])).toEqual([[join(elsewhere, 'claude', 'projects'), 'CLAUDE_CONFIG_DIR', 3]]);
    const both = { CLAUDE_CONFIG_DIR: `${join(elsewhere, 'claude')},${join(home, '.config', 'claude', 'projects')}` };
    const two = await discoverInputs({ ...linuxEnvironment(home, both), filters: parseSourceFilters({ agent: ['claude-code'] }) });
    expect(two.found.map((s) => s.sessions)).toEqual([3, 1]);
  });

  it('reads CODEX_HOME, XDG_CONFIG_HOME and XDG_DATA_HOME instead of the home folder', async () => {
    const home = buildAgentHome(tempDir('home'));
    const moved = tempDir('xdg');
    renameSync(join(home, '.codex'), join(moved, 'codex'));
    renameSync(join(home, '.config'), join(moved, 'config'));
    renameSync(join(home, '.local', 'share'), join(moved, 'data'));
    const env = { CODEX_HOME: join(moved, 'codex'), XDG_CONFIG_HOME: join(moved, 'config'), XDG_DATA_HOME: join(moved, 'data') };
    const { found } = await discoverInputs(linuxEnvironment(home, env));
    expect(perAgent(found)).toEqual(HOME_SESSIONS);
    expect(found.filter((s) => s.origin !== 'default').map((s) => `${s.agent} ${s.origin} ${s.folder.startsWith(moved)}`)).toEqual([
      'claude-code XDG_CONFIG_HOME true',
      'codex CODEX_HOME true',
      'codex CODEX_HOME true',
      'cline XDG_CONFIG_HOME true',
      'roo-code XDG_CONFIG_HOME true',
      'opencode XDG_DATA_HOME true',
      'opencode XDG_DATA_HOME true',
      'kilo XDG_DATA_HOME true',
      'goose XDG_DATA_HOME true',
      'goose XDG_DATA_HOME true',
      'amp XDG_DATA_HOME true',
      'crush XDG_DATA_HOME true',
      'zed XDG_DATA_HOME true',
    ]);
    // Without the variables the moved folders are not found.
    expect(perAgent((await discoverInputs(linuxEnvironment(home))).found)).toEqual({
      'claude-code': 3,
      gemini: 3,
      kimi: 1,
      droid: 1,
      qwen: 2,
      continue: 2,
      copilot: 3,
      hermes: 3,
    });
  });

  it('reads a folder reached by two names once', async () => {
    const home = buildAgentHome(tempDir('home'));
    cpSync(join(home, '.config', 'claude', 'projects'), join(home, '.claude', 'projects'), { recursive: true });
    renameSync(join(home, '.config', 'claude'), join(home, 'claude-moved'));
    symlinkSync(join(home, '.claude'), join(home, '.config', 'claude'));
    const { found } = await discoverInputs({ ...linuxEnvironment(home), filters: parseSourceFilters({ agent: ['claude-code'] }) });
    expect(found.map((s) => [s.folder.slice(home.length), s.sessions])).toEqual([['/.config/claude/projects', 4]]);
  });

  it("finds a Cline task whose history is gone by its UI log, and Kilo Code's tasks in Cursor's storage", async () => {
    const home = tempDir('cline-ui-home');
    const fixture = join(import.meta.dirname, '..', 'fixtures', 'cline', 'with-ui', 'tasks', '1745000000000');
    const cline = join(home, '.config', 'Code', 'User', 'globalStorage', 'saoudrizwan.claude-dev', 'tasks', '1745000000000');
    mkdirSync(cline, { recursive: true });
    cpSync(join(fixture, 'ui_messages.json'), join(cline, 'ui_messages.json'));
    const kilo = join(home, '.config', 'Cursor', 'User', 'globalStorage', 'kilocode.kilo-code', 'tasks', '1745000000000');
    mkdirSync(kilo, { recursive: true });
    cpSync(join(fixture, 'api_conversation_history.json'), join(kilo, 'api_conversation_history.json'));
    const { found, inputs } = await discoverInputs(linuxEnvironment(home));
    expect(found.map((s) => [s.agent, s.folder.slice(home.length), s.sessions])).toEqual([
      ['cline', '/.config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks', 1],
      ['kilo-code', '/.config/Cursor/User/globalStorage/kilocode.kilo-code/tasks', 1],
    ]);
    expect(inputs.map((f) => f.slice(home.length)).sort()).toEqual([
      '/.config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1745000000000/ui_messages.json',
      '/.config/Cursor/User/globalStorage/kilocode.kilo-code/tasks/1745000000000/api_conversation_history.json',
    ]);
  });

  it('finds nothing in an empty home, and says where it looked', async () => {
    const home = tempDir('empty-home');
    const { found, inputs, searched } = await discoverInputs(linuxEnvironment(home));
    expect([found, inputs]).toEqual([[], []]);
    expect(searched.length).toBeGreaterThan(10);
  });
});
