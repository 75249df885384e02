import { copyFileSync, cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readInputs } from '../../src/formats/read-inputs.js';
import { recordedUsage } from '../../src/replay/billing/recorded-usage.js';
import { discoverInputs } from '../../src/sources/discover.js';
import { parseSourceFilters } from '../../src/sources/filters.js';
import type { SourceEnvironment } from '../../src/sources/types.js';
import { linuxEnvironment } from '../helpers/agent-home.js';
import { runMain } from '../helpers/cli-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
const LIVE = '3c9d2e1f-0a4b-4c6d-8e7f-9a0b1c2d3e4f';

/**
 * The cache reads of OpenClaw's sessions in this home: the record's (the live session 12,181 and the reset one 2,412,
 * test/formats/pi-usage.test.ts), and ccusage 20.0.24's (`ccusage openclaw session --json --offline`, OPENCLAW_DIR at
 * the state folder), which reads the pre-compaction copy as a session of its own and counts the live session's 12,181
 * twice.
 */
const OPENCLAW_CACHE_READ = { record: 14_593, ccusage: 26_774 };

/**
 * A home with pi's fixture sessions in `~/.pi/agent/sessions/` and OpenClaw's in the folder of its former name,
 * `~/.clawdbot/agents/main/sessions/`, with what OpenClaw keeps there that is not a session of its own: a copy made
 * before a compaction (`<id>.checkpoint.<uuid>.jsonl`), a `.bak` archive and the index `sessions.json`.
 */
function piHome(): string {
  const home = tempDir('pi-home');
  cpSync(join(FIXTURES, 'pi', 'sessions'), join(home, '.pi', 'agent', 'sessions'), { recursive: true });
  cpSync(join(FIXTURES, 'openclaw', 'agents'), join(home, '.clawdbot', 'agents'), { recursive: true });
  const sessions = join(home, '.clawdbot', 'agents', 'main', 'sessions');
  copyFileSync(join(sessions, `${LIVE}.jsonl`), join(sessions, `${LIVE}.checkpoint.0f1e2d3c-4b5a-4968-9776-655443322110.jsonl`));
  copyFileSync(join(sessions, `${LIVE}.jsonl`), join(sessions, `${LIVE}.jsonl.bak.2026-03-07T08-00-00.000Z`));
  writeFileSync(join(home, '.openclaw-notes.txt'), 'not a folder of OpenClaw');
  return home;
}

/** The CLI in this process, looking for agent sessions in `environment` instead of the user's own. */
const run = (args: string[], environment: SourceEnvironment) => runMain(args, { environment });

describe("pi's and OpenClaw's sessions where they write them", () => {
  it('finds the sessions, archives included, and leaves out the pre-compaction copies, .bak archives and the index', async () => {
    const home = piHome();
    const { found, inputs } = await discoverInputs({ ...linuxEnvironment(home), filters: parseSourceFilters({ agent: ['pi', 'openclaw'] }) });
    expect(found.map((s) => `${s.agent} ${s.folder.slice(home.length)} ${s.sessions} ${s.firstFrom} ${s.first?.slice(0, 10)}`)).toEqual([
      'pi /.pi/agent/sessions 5 session 2025-11-05',
      'openclaw /.clawdbot/agents 3 session 2026-03-05',
    ]);
    expect(inputs.filter((f) => f.includes('.clawdbot')).map((f) => f.split('/').pop())).toEqual([
      '1a7b0c9d-8e2f-4a3b-9c4d-5e6f70819a2b.jsonl.deleted.2026-03-05T12-05-00.000Z',
      '2b8c1d0e-9f3a-4b5c-8d6e-7f8091a2b3c4.jsonl.reset.2026-03-07T07-29-59.512Z',
      `${LIVE}.jsonl`,
    ]);
    const items = [];
    for await (const item of readInputs(
      inputs.filter((f) => f.includes('.clawdbot')),
      { maxLineBytes: 1 << 26 },
    ))
      items.push(item);
    const read = items.flatMap((i) => (i.kind === 'transcript' ? [recordedUsage(i.transcript)?.cacheRead ?? 0] : []));
    expect(read.reduce((a, b) => a + b, 0)).toBe(OPENCLAW_CACHE_READ.record);
    expect(OPENCLAW_CACHE_READ.ccusage - OPENCLAW_CACHE_READ.record).toBe(12_181);
    const notes = await discoverInputs({ ...linuxEnvironment(home), filters: parseSourceFilters({ agent: ['pi'], project: '/home/dev/notes' }) });
    expect(notes.found[0].sessions).toBe(3);
  });

  it('stats with no input reads them with --agent pi and --agent openclaw, each as its format', async () => {
    const home = piHome();
    const r = await run(['stats', '--json', '--agent', 'pi', '--agent', 'openclaw'], linuxEnvironment(home));
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { errors: number; byFormat: Record<string, { transcripts: number }> };
    expect(out.errors).toBe(0);
    expect(Object.fromEntries(Object.entries(out.byFormat).map(([f, v]) => [f, v.transcripts]))).toEqual({ pi: 5, openclaw: 3 });
    const sources = await run(['sources'], linuxEnvironment(home));
    expect(sources.code, sources.stderr).toBe(0);
    expect(sources.stdout).toContain('| pi | sessions | ~/.pi/agent/sessions | 5 |');
    expect(sources.stdout).toContain('| openclaw | sessions | ~/.clawdbot/agents | 3 |');
  });
});
