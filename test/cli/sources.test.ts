import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { SourceEnvironment } from '../../src/sources/types.js';
import { HOME_SESSIONS, buildAgentHome, linuxEnvironment } from '../helpers/agent-home.js';
import { tempDir } from '../helpers/temp-dir.js';

/** The CLI in this process, looking for agent sessions in `environment` instead of the user's own. */
async function run(args: string[], environment: SourceEnvironment): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const sink = (append: (s: string) => void) =>
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        append(chunk.toString());
        done();
      },
    });
  const code = await main(args, { stdout: sink((s) => (stdout += s)), stderr: sink((s) => (stderr += s)), environment });
  return { code, stdout, stderr };
}

/** Every entry under a folder: path, size, modification time and content hash (files), so that any write shows. */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  const visit = (path: string) => {
    const info = statSync(path);
    if (info.isDirectory()) {
      out.push(`${relative(dir, path)}/ ${info.mtimeMs}`);
      for (const name of readdirSync(path).sort()) visit(join(path, name));
    } else {
      out.push(`${relative(dir, path)} ${info.size} ${info.mtimeMs} ${createHash('sha256').update(readFileSync(path)).digest('hex')}`);
    }
  };
  visit(dir);
  return out;
}

type StatsJson = { transcripts: { file: string }[]; byFormat?: Record<string, { transcripts: number }>; errors: number };

describe('tcompact sources', () => {
  it('lists each folder with its agent, kind, sessions, bytes and dates, and what it cannot read', async () => {
    const home = buildAgentHome(tempDir('home'));
    const r = await run(['sources'], linuxEnvironment(home));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('| agent | kind | folder | sessions | bytes | first | last |');
    expect(r.stdout).toContain('| claude-code | projects | ~/.claude/projects | 3 | 286,494 | 2026-02-10 | 2026-02-10 |');
    expect(r.stdout).toContain('| roo-code | tasks | ~/.config/VSCodium/User/globalStorage/rooveterinaryinc.roo-cline/tasks | 1 |');
    expect(r.stdout).toContain(
      "15 sessions in 10 folders. first: the sessions' own recorded start times; last: the latest modification time of a session's files.",
    );
    expect(r.stdout).toContain('not read: goose ~/.local/share/goose/sessions: 1 file, 16 bytes, SQLite database');
  });

  it('prints the same as JSON with --json, and every folder it looked in', async () => {
    const home = buildAgentHome(tempDir('home'));
    const r = await run(['sources', '--json', '--agent', 'gemini'], linuxEnvironment(home));
    const out = JSON.parse(r.stdout) as { sources: Record<string, unknown>[]; searched: { folder: string }[] };
    expect(out.sources).toEqual([
      expect.objectContaining({
        agent: 'gemini',
        kind: 'chats',
        format: 'gemini',
        sessions: 2,
        first: '2025-11-12T09:44:02.118Z',
        firstFrom: 'session',
        lastFrom: 'file',
      }),
      expect.objectContaining({ agent: 'gemini', kind: 'checkpoints', format: 'gemini-checkpoint', sessions: 1, first: '2025-11-12T09:44:40.017Z' }),
    ]);
    expect(out.searched.map((l) => l.folder)).toEqual([join(home, '.gemini', 'tmp'), join(home, '.gemini', 'tmp')]);
  });

  it('says where it looked when it finds nothing', async () => {
    const home = tempDir('empty-home');
    const r = await run(['sources', '--agent', 'codex'], linuxEnvironment(home));
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('No agent sessions found. Looked in:\n  codex        ~/.codex/sessions\n  codex        ~/.codex/archived_sessions\n');
  });

  it('rejects a bad date and an unknown agent with the exact message, and takes no input', async () => {
    const home = tempDir('empty-home');
    const bad = await run(['sources', '--since', '2026-13-01'], linuxEnvironment(home));
    expect([bad.code, bad.stderr]).toEqual([
      2,
      'tcompact sources: E_USAGE: --since must be a day (YYYY-MM-DD, UTC) or a time with its zone (YYYY-MM-DDThh:mm[:ss]Z or +hh:mm), got "2026-13-01"\n',
    ]);
    const agent = await run(['sources', '--agent', 'cursor'], linuxEnvironment(home));
    expect(agent.stderr).toBe('tcompact sources: E_USAGE: --agent must be one of claude-code, codex, gemini, cline, roo-code, opencode, goose; got "cursor"\n');
    const input = await run(['sources', home], linuxEnvironment(home));
    expect([input.code, input.stderr]).toEqual([2, `tcompact sources: E_USAGE: sources: takes no input, got "${home}" (see 'tcompact sources --help')\n`]);
  });
});

describe('tcompact stats with no input', () => {
  it("reads every agent's sessions, each with its format, and says which folders it read on stderr", async () => {
    const home = buildAgentHome(tempDir('home'));
    const r = await run(['stats', '--json'], linuxEnvironment(home));
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as StatsJson;
    expect(out.errors).toBe(0);
    // Transcripts per agent, by the folder each came from (a Claude Code session's subagents are transcripts of their own).
    const agentOf = (file: string) =>
      /\/\.c(laude|onfig\/claude)\//.test(file)
        ? 'claude-code'
        : /\.codex/.test(file)
          ? 'codex'
          : /\.gemini/.test(file)
            ? 'gemini'
            : /claude-dev/.test(file)
              ? 'cline'
              : /roo-cline/.test(file)
                ? 'roo-code'
                : /opencode/.test(file)
                  ? 'opencode'
                  : 'goose';
    const counts: Record<string, number> = {};
    for (const t of out.transcripts) counts[agentOf(t.file)] = (counts[agentOf(t.file)] ?? 0) + 1;
    expect(counts).toEqual({ ...HOME_SESSIONS, 'claude-code': HOME_SESSIONS['claude-code'] + 2 });
    expect(Object.fromEntries(Object.entries(out.byFormat!).map(([f, v]) => [f, v.transcripts]))).toEqual({
      'claude-code': 6,
      codex: 4,
      gemini: 2,
      'gemini-checkpoint': 1,
      cline: 2,
      opencode: 1,
      goose: 1,
    });
    expect(r.stderr.split('\n')[0]).toBe('tcompact stats: no input given: reading 15 agent sessions from 10 folders:');
    expect(r.stderr).toContain('  roo-code          1 sessions  ~/.config/VSCodium/User/globalStorage/rooveterinaryinc.roo-cline/tasks (tasks)\n');
  });

  it('reads only what the filter flags select', async () => {
    const home = buildAgentHome(tempDir('home'));
    const r = await run(['stats', '--json', '--agent', 'codex', '--agent', 'goose', '--since', '2025-11-01', '--project', 'dev'], linuxEnvironment(home));
    const files = (JSON.parse(r.stdout) as StatsJson).transcripts.map((t) => t.file.slice(home.length));
    expect(files).toEqual([
      '/.codex/sessions/2025/11/03/rollout-2025-11-03T09-12-01-0199b7d4-1f2e-7a31-9c55-0d6e2f4a8b90.jsonl',
      '/.codex/sessions/2026/03/02/rollout-2026-03-02T10-00-00-019cad3e-7b41-7c20-9e6d-3f5a8b2c1d90.jsonl',
      '/.local/share/goose/sessions/20251112_094402.jsonl',
    ]);
  });

  it('is a usage error when nothing is found, or when nothing passes the filters', async () => {
    const empty = await run(['stats'], linuxEnvironment(tempDir('empty-home')));
    expect([empty.code, empty.stderr]).toEqual([
      2,
      "tcompact stats: E_USAGE: stats: no input given, and no agent sessions were found (see 'tcompact sources')\n",
    ]);
    const home = buildAgentHome(tempDir('home'));
    const none = await run(['stats', '--until', '2020-01-01'], linuxEnvironment(home));
    expect([none.code, none.stderr]).toEqual([
      2,
      "tcompact stats: E_USAGE: stats: no input given, and no session found passes the filters (see 'tcompact sources')\n",
    ]);
  });

  it('takes the filter flags only without inputs', async () => {
    const home = buildAgentHome(tempDir('home'));
    const r = await run(['stats', join(home, '.codex'), '--agent', 'codex'], linuxEnvironment(home));
    expect([r.code, r.stderr]).toEqual([
      2,
      'tcompact stats: E_USAGE: stats: --agent, --since, --until and --project select the sessions found when no input is given; they cannot be used with inputs\n',
    ]);
  });
});

describe("the agents' folders", () => {
  it('are never written to (RELIABILITY 23): sources and stats leave every file and folder of the home as it was', async () => {
    const home = buildAgentHome(tempDir('home'));
    const before = snapshot(home);
    for (const args of [['sources'], ['sources', '--json'], ['stats'], ['stats', '--json', '--project', 'todo']]) {
      expect((await run(args, linuxEnvironment(home))).code, args.join(' ')).toBe(0);
    }
    expect(snapshot(home)).toEqual(before);
    expect(before.length).toBeGreaterThan(40);
  });
});
