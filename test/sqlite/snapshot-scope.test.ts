import { promises as fsPromises, readFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readInputs } from '../../src/formats/read-inputs.js';
import { collect, READ, transcriptsOf } from '../formats/helpers.js';
import { linuxEnvironment } from '../helpers/agent-home.js';
import { runMain } from '../helpers/cli-in-process.js';
import { otherSession, readExport, writeOpenCodeDatabase } from '../helpers/opencode-database.js';
import { tempDir } from '../helpers/temp-dir.js';

// Every whole-file read of this process, by path: how many times a command took a store and its WAL from disk. The
// files run unisolated (vitest.config.ts), so the modules that read are loaded already: the built-in's export is
// replaced in place (syncBuiltinESMExports carries it to every ESM import of node:fs/promises) for this file's tests.
const reads = new Map<string, number>();
const original = fsPromises.readFile;
beforeAll(() => {
  fsPromises.readFile = ((path: Parameters<typeof original>[0], ...rest: unknown[]) => {
    if (typeof path === 'string') reads.set(path, (reads.get(path) ?? 0) + 1);
    return (original as (...args: unknown[]) => Promise<unknown>)(path, ...rest);
  }) as typeof original;
  syncBuiltinESMExports();
});
afterAll(() => {
  fsPromises.readFile = original;
  syncBuiltinESMExports();
});

const FIRST = readExport(join(import.meta.dirname, '..', 'fixtures', 'opencode', 'ses_5b2e1c7d9ffeAbCdEf012345.json'));
const SECOND = otherSession(FIRST, 'Kk2', '/home/dev/api-server', 86_400_000);

function storeHome(): { home: string; db: string } {
  const home = tempDir('scope-home');
  const db = join(home, '.local', 'share', 'opencode', 'opencode.db');
  writeOpenCodeDatabase(db, [FIRST, SECOND], { walFrom: FIRST.messages.length + 2 });
  return { home, db };
}

const readsOf = (db: string) => [reads.get(db) ?? 0, reads.get(`${db}-wal`) ?? 0];

describe('a command reads each SQLite store once', () => {
  it('convert --agent: discovery, detection and the reader share one read of the store and its WAL, and write what a fresh read gives', async () => {
    const { home, db } = storeHome();
    const out = join(tempDir('scope-out'), 'out.jsonl');
    reads.clear();
    const r = await runMain(['convert', '--agent', 'opencode', '--out', out], { environment: linuxEnvironment(home) });
    expect(r.code, r.stderr).toBe(0);
    expect(readsOf(db)).toEqual([1, 1]);
    const written = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; messages: unknown[] });
    const fresh = transcriptsOf(await collect(readInputs([db], READ))).map((t) => t.transcript);
    expect(written.map((t) => t.id)).toEqual([FIRST.info.id, SECOND.info.id]);
    expect(written.map((t) => t.messages)).toEqual(JSON.parse(JSON.stringify(fresh.map((t) => t.messages))));
  });

  it('run on a store: planning and reading share one read', async () => {
    const { db } = storeHome();
    reads.clear();
    const r = await runMain(['run', db, '--out', join(tempDir('scope-run'), 'run'), '--workers', '1', '--quiet']);
    expect(r.code, r.stderr).toBe(0);
    expect(readsOf(db)).toEqual([1, 1]);
  });

  it('outside a command, each read takes the files afresh', async () => {
    const { db } = storeHome();
    reads.clear();
    await collect(readInputs([db], READ));
    await collect(readInputs([db], READ));
    expect(readsOf(db)).toEqual([4, 4]);
  });
});
