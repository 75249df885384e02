import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SourceEnvironment } from '../../src/sources/types.js';
import { HOME_SESSIONS, TODO_CLI, buildAgentHome, linuxEnvironment } from '../helpers/agent-home.js';
import { type MainResult, runMain } from '../helpers/cli-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';
import { cliFaults, outputDigest, runCli } from '../pipeline/helpers.js';

/**
 * One home for the file: no test but the one that starts a session writes to it, and each that must leave it as it was
 * compares it before and after. Its long Claude Code session is cut short (see buildAgentHome): every command still
 * finds and reads all 35 sessions.
 */
const LONG_SESSION_LINES = 400;
let home: string;
beforeAll(() => {
  home = buildAgentHome(tempDir('home'), { longSessionLines: LONG_SESSION_LINES });
});

/** The CLI in this process, looking for agent sessions in `environment` instead of the user's own. */
const run = (args: string[], environment: SourceEnvironment) => runMain(args, { environment });

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

/** The agent whose folder a session file is in. */
function agentOf(file: string): string {
  return /\/\.c(laude|onfig\/claude)\//.test(file)
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
              : /\/amp\//.test(file)
                ? 'amp'
                : /\.kimi/.test(file)
                  ? 'kimi'
                  : /\.factory/.test(file)
                    ? 'droid'
                    : /\.qwen/.test(file)
                      ? 'qwen'
                      : /\.continue/.test(file)
                        ? 'continue'
                        : /\.copilot/.test(file)
                          ? 'copilot'
                          : /\.crush\//.test(file)
                            ? 'crush'
                            : /kilo/.test(file)
                              ? 'kilo'
                              : /\/zed\//.test(file)
                                ? 'zed'
                                : /\.hermes/.test(file)
                                  ? 'hermes'
                                  : 'goose';
}

/** Transcripts per agent, by the folder each came from. */
function transcriptsPerAgent(files: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const file of files) counts[agentOf(file)] = (counts[agentOf(file)] ?? 0) + 1;
  return counts;
}

/** The transcripts of the fake home per agent: a Claude Code session's subagents are transcripts of their own. */
const HOME_TRANSCRIPTS = { ...HOME_SESSIONS, 'claude-code': HOME_SESSIONS['claude-code'] + 2 };

type StatsJson = {
  transcripts: { file: string }[];
  byFormat?: Record<string, { transcripts: number }>;
  byProject?: Record<string, { transcripts: number }>;
  errors: number;
};

describe('tcompact sources', () => {
  it('lists each folder with its agent, kind, sessions, bytes and dates, and what it cannot read', async () => {
    const r = await run(['sources'], linuxEnvironment(home));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('| agent | kind | folder | sessions | bytes | first | last |');
    expect(r.stdout).toContain('| claude-code | projects | ~/.claude/projects | 3 | 286,494 | 2026-02-10 | 2026-02-10 |');
    expect(r.stdout).toContain('| roo-code | tasks | ~/.config/VSCodium/User/globalStorage/rooveterinaryinc.roo-cline/tasks | 1 |');
    expect(r.stdout).toContain(
      "35 sessions in 23 folders. first: the sessions' own recorded start times; last: the latest modification time of a session's files.",
    );
    expect(r.stdout).toContain('| goose | database | ~/.local/share/goose/sessions | 1 | 3,647 | 2025-11-13 | 2025-11-13 |');
    expect(r.stdout).toContain('| crush | projects | ~/.local/share/crush | 2 | 3,380 | 2026-02-03 | 2026-02-03 |');
    expect(r.stdout).not.toContain('not read: goose');
  });

  it('prints the same as JSON with --json, and every folder it looked in', async () => {
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
    expect(agent.stderr).toBe(
      'tcompact sources: E_USAGE: --agent must be one of claude-code, codex, gemini, cline, roo-code, kilo-code, opencode, kilo, goose, pi, openclaw, amp, kimi, droid, qwen, continue, copilot, crush, zed, hermes; got "cursor"\n',
    );
    const input = await run(['sources', home], linuxEnvironment(home));
    expect([input.code, input.stderr]).toEqual([2, `tcompact sources: E_USAGE: sources: takes no input, got "${home}" (see 'tcompact sources --help')\n`]);
  });
});

describe('tcompact stats with no input', () => {
  it("reads every agent's sessions, each with its format, and says which folders it read on stderr", async () => {
    const r = await run(['stats', '--json'], linuxEnvironment(home));
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as StatsJson;
    expect(out.errors).toBe(0);
    expect(transcriptsPerAgent(out.transcripts.map((t) => t.file))).toEqual(HOME_TRANSCRIPTS);
    expect(Object.fromEntries(Object.entries(out.byFormat!).map(([f, v]) => [f, v.transcripts]))).toEqual({
      'claude-code': 6,
      codex: 4,
      gemini: 2,
      'gemini-checkpoint': 1,
      cline: 2,
      opencode: 1,
      'opencode-db': 2,
      goose: 1,
      'goose-db': 1,
      amp: 1,
      kimi: 1,
      droid: 1,
      qwen: 2,
      continue: 2,
      copilot: 3,
      crush: 2,
      zed: 2,
      hermes: 3,
    });
    // Per project, as each agent recorded it: the working directory (Cline's and Roo Code's beside their tasks), Gemini CLI's hash.
    expect(Object.fromEntries(Object.entries(out.byProject!).map(([p, v]) => [p, v.transcripts]))).toEqual({
      '/home/USER/projects/spotter-worktrees/spotter-4te': 3,
      '/home/dev/api': 2,
      [TODO_CLI]: 11,
      '/home/marco/projects/spotter': 3,
      '79b6fa86e3c0d31765c7e3c6de511a7b96342a2e947135d5db396e49e27020cd': 1,
      be36aa850ed33336ee9b50e53a9026eb7feb9c91da12c0a4057f4cc20da851ec: 1,
      // Qwen Code's `cwd` and Continue's workspace folder (a file: URI in the IDE's session).
      '/home/dev/projects/shop': 4,
      // Copilot CLI's session.start context; its legacy session records no folder, nor do Zed's legacy thread and
      // Hermes' sessions (whose store here has no cwd column).
      '/home/dev/inventory': 2,
      '(no project)': 7,
      // goose's store's session and Crush's project folder (the one holding its `.crush` folder).
      '/home/dev/api-server': 1,
      [join(home, 'projects', 'todo-cli')]: 2,
    });
    expect(r.stderr.split('\n')[0]).toBe('tcompact stats: no input given: reading 35 agent sessions from 23 folders:');
    expect(r.stderr).toContain('  roo-code          1 sessions  ~/.config/VSCodium/User/globalStorage/rooveterinaryinc.roo-cline/tasks (tasks)\n');
  });

  it('reads only what the filter flags select', async () => {
    const r = await run(['stats', '--json', '--agent', 'codex', '--agent', 'goose', '--since', '2025-11-01', '--project', 'dev'], linuxEnvironment(home));
    const files = (JSON.parse(r.stdout) as StatsJson).transcripts.map((t) => t.file.slice(home.length));
    expect(files).toEqual([
      '/.codex/sessions/2025/11/03/rollout-2025-11-03T09-12-01-0199b7d4-1f2e-7a31-9c55-0d6e2f4a8b90.jsonl',
      '/.codex/sessions/2026/03/02/rollout-2026-03-02T10-00-00-019cad3e-7b41-7c20-9e6d-3f5a8b2c1d90.jsonl',
      '/.local/share/goose/sessions/sessions.db',
      '/.local/share/goose/sessions/20251112_094402.jsonl',
    ]);
  });

  it('is a usage error when nothing is found, or when nothing passes the filters', async () => {
    const empty = await run(['stats'], linuxEnvironment(tempDir('empty-home')));
    expect([empty.code, empty.stderr]).toEqual([
      2,
      "tcompact stats: E_USAGE: stats: no input given, and no agent sessions were found (see 'tcompact sources')\n",
    ]);
    const none = await run(['stats', '--until', '2020-01-01'], linuxEnvironment(home));
    expect([none.code, none.stderr]).toEqual([
      2,
      "tcompact stats: E_USAGE: stats: no input given, and no session found passes the filters (see 'tcompact sources')\n",
    ]);
  });

  it('takes the filter flags only without inputs', async () => {
    const r = await run(['stats', join(home, '.codex'), '--agent', 'codex'], linuxEnvironment(home));
    expect([r.code, r.stderr]).toEqual([
      2,
      'tcompact stats: E_USAGE: stats: --agent, --since, --until and --project select the sessions found when no input is given; they cannot be used with inputs\n',
    ]);
  });
});

/** Lines of a JSONL file, parsed. */
function jsonLines(path: string): { metadata?: { source?: { file?: string } } }[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { metadata?: { source?: { file?: string } } });
}

/**
 * Each command that reads the agents' sessions when given no input: its arguments (the output in `out`, never in the
 * home), and the files of the transcripts it read, from its own output.
 */
const NO_INPUT_COMMANDS: { command: string; args: (out: string) => string[]; files: (out: string) => string[] }[] = [
  {
    command: 'convert',
    args: (out) => ['--out', join(out, 'archive.jsonl')],
    files: (out) => jsonLines(join(out, 'archive.jsonl')).map((t) => t.metadata?.source?.file ?? ''),
  },
  {
    command: 'run',
    args: (out) => ['--out', out, '--workers', '1', '--tokenizer', 'heuristic', '--quiet'],
    files: (out) => jsonLines(join(out, 'transcripts.jsonl')).map((t) => t.metadata?.source?.file ?? ''),
  },
  {
    command: 'eval',
    args: (out) => ['--out', out, '--strategy', 'auto', '--tokenizer', 'heuristic'],
    files: (out) => (JSON.parse(readFileSync(join(out, 'eval.json'), 'utf8')) as { perTranscript: { file: string }[] }).perTranscript.map((t) => t.file),
  },
  {
    command: 'simulate',
    args: (out) => ['--out', out, '--policy', 'default', '--tokenizer', 'heuristic'],
    files: (out) => (JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8')) as { perTranscript: { file: string }[] }).perTranscript.map((t) => t.file),
  },
];

/** A command run with no input on the home, its output in a folder of its own (`out`, else one the test removes). */
async function runNoInput(command: string, args: (out: string) => string[], out = tempDir(`no-input-${command}`)): Promise<{ out: string; r: MainResult }> {
  return { out, r: await run([command, ...args(out)], linuxEnvironment(home)) };
}

/**
 * The no-input `run`, made once: its own test checks it, and the resume test compares the resumed run with it (the same
 * command and flags).
 */
let wholeRun: Promise<{ out: string; r: MainResult }> | undefined;
let wholeRunOut: string;
beforeAll(() => {
  // Made in a hook, the folder stays until the file's last test (see tempDir).
  wholeRunOut = tempDir('no-input-run');
});
const runWhole = () => (wholeRun ??= runNoInput('run', NO_INPUT_COMMANDS.find((c) => c.command === 'run')!.args, wholeRunOut));

describe('every command that reads files, with no input', () => {
  for (const { command, args, files } of NO_INPUT_COMMANDS) {
    it(`${command} reads every agent's sessions, says which folders on stderr, and leaves the home as it was`, async () => {
      const before = snapshot(home);
      const { out, r } = command === 'run' ? await runWhole() : await runNoInput(command, args);
      expect([r.code, r.stderr.split('\n')[0]]).toEqual([0, `tcompact ${command}: no input given: reading 35 agent sessions from 23 folders:`]);
      expect(transcriptsPerAgent(files(out))).toEqual(HOME_TRANSCRIPTS);
      expect(snapshot(home)).toEqual(before);
    });
  }

  // tune replays every session of the home under each candidate: the longest part of this file, even on the cut-short home.
  it("tune reads every agent's sessions, says which folders on stderr, and leaves the home as it was", async () => {
    const before = snapshot(home);
    const out = tempDir('no-input-tune');
    const r = await run(['tune', '--out', out, '--workers', '1', '--tokenizer', 'heuristic', '--window', '20000'], linuxEnvironment(home));
    expect([r.code, r.stderr.split('\n')[0]]).toEqual([0, 'tcompact tune: no input given: reading 35 agent sessions from 23 folders:']);
    // Every agent the home holds (pi's and OpenClaw's are read in test/sources/pi-openclaw.test.ts).
    for (const agent of Object.keys(HOME_SESSIONS)) expect(r.stderr).toMatch(new RegExp(`^  ${agent} +\\d+ sessions`, 'm'));
    const tune = JSON.parse(readFileSync(join(out, 'tune.json'), 'utf8')) as { transcripts: number; errors: number; inputs: string[] };
    expect([tune.transcripts, tune.errors]).toEqual([Object.values(HOME_TRANSCRIPTS).reduce((n, k) => n + k, 0), 0]);
    expect(tune.inputs).toHaveLength(23);
    expect(snapshot(home)).toEqual(before);
  }, 150_000);

  it('keeps the exact message when the filters leave nothing, and takes the filter flags only without inputs', async () => {
    const out = tempDir('no-input');
    for (const command of ['convert', 'run', 'eval', 'simulate', 'tune']) {
      const none = await run([command, '--out', join(out, command), '--until', '2020-01-01'], linuxEnvironment(home));
      expect([none.code, none.stderr]).toEqual([
        2,
        `tcompact ${command}: E_USAGE: ${command}: no input given, and no session found passes the filters (see 'tcompact sources')\n`,
      ]);
      const given = await run([command, join(home, '.codex'), '--out', join(out, command), '--agent', 'codex'], linuxEnvironment(home));
      expect(given.stderr).toBe(
        `tcompact ${command}: E_USAGE: ${command}: --agent, --since, --until and --project select the sessions found when no input is given; they cannot be used with inputs\n`,
      );
    }
    expect(readdirSync(out)).toEqual([]);
  });

  it("refuses an output inside an agent's folder", async () => {
    const before = snapshot(home);
    const out = join(home, '.codex', 'sessions', 'out');
    const r = await run(['simulate', '--out', out, '--agent', 'gemini'], linuxEnvironment(home));
    expect([r.code, r.stderr]).toEqual([
      2,
      'tcompact simulate: E_USAGE: simulate: --out ' + out + ' is inside ~/.codex/sessions, where codex keeps its sessions: write it elsewhere\n',
    ]);
    expect(snapshot(home)).toEqual(before);
  });
});

describe('run with no input, then --resume', () => {
  /** The built CLI's environment with `home` as the home folder and no variable that moves an agent's folder. */
  const homeEnv = (home: string): Record<string, string> => ({
    HOME: home,
    ...Object.fromEntries(
      ['XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'GEMINI_CLI_HOME', 'CLINE_DIR', 'CLINE_DATA_DIR', 'GOOSE_PATH_ROOT'].map(
        (name) => [name, ''],
      ),
    ),
    ...Object.fromEntries(['VSCODE_APPDATA', 'VSCODE_PORTABLE', 'APPDATA'].map((name) => [name, ''])),
  });
  const committedShards = (out: string) =>
    existsSync(join(out, 'journal.jsonl'))
      ? readFileSync(join(out, 'journal.jsonl'), 'utf8')
          .split('\n')
          .filter((l) => l.startsWith('{"type":"shard"')).length
      : 0;

  it('reuses the shards of an interrupted run when the sessions found are the same, and ends in the same bytes', async () => {
    const args = (out: string) => ['run', '--out', out, '--workers', '1', '--tokenizer', 'heuristic', '--quiet'];
    const { out: whole, r } = await runWhole();
    expect(r.code).toBe(0);
    const shards = (JSON.parse(readFileSync(join(whole, 'report.json'), 'utf8')) as { execution: { shards: number } }).execution.shards;

    // The built CLI, on the same home, slowed down and stopped with Ctrl-C once three shards are committed.
    const out = tempDir('run-resumed');
    const slow = cliFaults({ shardDelayMs: 150 });
    let exited = false;
    const stopped = await runCli(args(out), {
      ...slow,
      env: { ...slow.env, ...homeEnv(home) },
      onSpawn: (_pid, kill) => {
        void (async () => {
          while (committedShards(out) < 3 && !exited) await sleep(10);
          if (!exited) kill('SIGINT');
        })();
      },
    }).finally(() => (exited = true));
    expect(stopped.code).toBe(130);
    const committed = committedShards(out);
    expect(committed).toBeLessThan(shards);

    const resumed = await run([...args(out), '--resume'], linuxEnvironment(home));
    expect(resumed.code).toBe(0);
    expect(outputDigest(out)).toEqual(outputDigest(whole));
    expect((JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as { execution: { reusedShards: number } }).execution.reusedShards).toBe(committed);
  });

  it('refuses the resume, naming the new session and why, when an agent started one since', async () => {
    // A home of its own: this test starts a session in it. Codex's sessions only: the resume compares the sessions found
    // now with the journal's, whichever the filters select, and a run over the whole home shows no more.
    const home = buildAgentHome(tempDir('home'), { longSessionLines: LONG_SESSION_LINES });
    const out = tempDir('run-resume-refused');
    const args = ['run', '--out', out, '--workers', '1', '--tokenizer', 'heuristic', '--quiet', '--agent', 'codex'];
    expect((await run(args, linuxEnvironment(home))).code).toBe(0);
    const day = join(home, '.codex', 'sessions', '2026', '03', '02');
    const added = join(day, 'rollout-2026-03-02T11-00-00-019cad3e-7b41-7c20-9e6d-3f5a8b2c1d91.jsonl');
    copyFileSync(join(day, 'rollout-2026-03-02T10-00-00-019cad3e-7b41-7c20-9e6d-3f5a8b2c1d90.jsonl'), added);
    const refused = await run([...args, '--resume'], linuxEnvironment(home));
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain(
      'tcompact run: with no input given, the inputs are the agent sessions found now; an agent wrote or started one since the interrupted run',
    );
    expect(refused.stderr).toContain(
      `tcompact run: E_RESUME: the list of inputs changed since the journal was written (1 added: ${added}); run again without --resume to start over\n`,
    );
  });
});

describe("the agents' folders", () => {
  it('are never written to (RELIABILITY 23): sources and stats leave every file and folder of the home as it was', async () => {
    const before = snapshot(home);
    for (const args of [['sources'], ['sources', '--json'], ['stats'], ['stats', '--json', '--project', 'todo']]) {
      expect((await run(args, linuxEnvironment(home))).code, args.join(' ')).toBe(0);
    }
    expect(snapshot(home)).toEqual(before);
    expect(before.length).toBeGreaterThan(40);
  });
});
