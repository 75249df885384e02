import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { walkDataFiles } from '../../src/formats/walk.js';
import { BUNDLED } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp-dir.js';
import { runMain } from '../helpers/cli-in-process.js';
import { readJsonl } from '../pipeline/helpers.js';
import { runSqlitePython } from '../helpers/sqlite-writer.js';

/** A repository whose Claude Code sessions live in `.claude/`: the walk finds them, and only them. */
function repoWithSessions(): string {
  const repo = join(tempDir('walk'), 'my-repo');
  const put = (path: string, from?: string) => {
    mkdirSync(join(repo, path, '..'), { recursive: true });
    if (from) copyFileSync(from, join(repo, path));
    else writeFileSync(join(repo, path), '{"not": "a session"}\n');
  };
  put('.claude/projects/my-repo/session.jsonl', join(BUNDLED, 'claude-code', 'short.jsonl'));
  put('.claude/settings.json');
  put('.claude/settings.local.json');
  put('.git/objects/pack.json');
  put('node_modules/some-lib/package.json');
  put('.venv/lib/data.jsonl');
  put('.hidden.jsonl');
  return repo;
}

describe('directory walk', () => {
  it("enters the agents' own dot-folders and skips the others, settings files and node_modules", async () => {
    const repo = repoWithSessions();
    const found: string[] = [];
    for await (const f of walkDataFiles(repo)) found.push(relative(repo, f));
    expect(found).toEqual(['.claude/projects/my-repo/session.jsonl']);
  });

  it('lets convert find the sessions of a repository in .claude/', async () => {
    const repo = repoWithSessions();
    const out = join(repo, '..', 'all.jsonl');
    const r = await runMain(['convert', repo, '--out', out]);
    expect(r.code).toBe(0);
    expect(readJsonl(out).length).toBeGreaterThan(0);
  });
});

describe('inputs that yield nothing', () => {
  it('names what was skipped and exits 1, for convert, compact, stats and run', async () => {
    const dir = tempDir('nothing');
    const blank = join(dir, 'blank.jsonl');
    writeFileSync(blank, '\n\n\n');
    const empty = join(dir, 'no-data');
    mkdirSync(empty);
    writeFileSync(join(empty, 'README.md'), 'no sessions here\n');
    for (const args of [
      ['convert', blank, '--out', join(dir, 'c.jsonl')],
      ['compact', blank, '--out', join(dir, 'k.jsonl')],
      ['stats', blank],
      ['run', blank, '--out', join(dir, 'run'), '--quiet'],
    ]) {
      const r = await runMain(args);
      expect(r.code, args[0]).toBe(1);
      expect(r.stderr).toContain(`tcompact ${args[0]}: no transcript in ${blank}: skipped 3 blank`);
    }
    const r = await runMain(['convert', empty, '--out', join(dir, 'e.jsonl')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no data file (.jsonl, .json, .traj) was found');
  });
});

describe("a directory walk over agents' SQLite stores", () => {
  it('takes each database file detection takes for a store, whatever its name, and passes over other databases', async () => {
    const dir = tempDir('walk-stores');
    mkdirSync(join(dir, 'zed'));
    mkdirSync(join(dir, 'backups'));
    copyFileSync(join(import.meta.dirname, '..', 'fixtures', 'zed', 'threads.db'), join(dir, 'zed', 'threads.db'));
    copyFileSync(join(import.meta.dirname, '..', 'fixtures', 'hermes', 'state.db'), join(dir, 'state.db'));
    // Renamed: taken by its tables, not its name.
    copyFileSync(join(import.meta.dirname, '..', 'fixtures', 'hermes', 'state.db'), join(dir, 'backups', 'hermes-copy.sqlite'));
    // A SQLite database of no agent, and a file named like one that is no database.
    runSqlitePython(
      "import sqlite3, sys\ncon = sqlite3.connect(sys.argv[1])\ncon.execute('CREATE TABLE notes (id INTEGER, body TEXT)')\ncon.commit()",
      join(dir, 'notes.db'),
    );
    writeFileSync(join(dir, 'cache.db'), 'not a database\n');
    const found: string[] = [];
    for await (const f of walkDataFiles(dir)) found.push(relative(dir, f));
    expect(found).toEqual(['state.db', join('backups', 'hermes-copy.sqlite'), join('zed', 'threads.db')]);

    const stats = await runMain(['stats', dir, '--json']);
    expect(stats.code, stats.stderr).toBe(0);
    expect(stats.stderr).not.toMatch(/notes\.db|cache\.db/);
  });
});
