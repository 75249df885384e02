import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fingerprintFile } from '../../../src/io/fingerprint.js';
import { readJournal } from '../../../src/pipeline/store/journal.js';
import { openOutputDir } from '../../../src/pipeline/store/output-dir.js';
import { commitShard } from '../../../src/pipeline/store/shard-store.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { realShards } from './real-shards.js';

async function setup() {
  const dir = tempDir('output-dir');
  const out = join(dir, 'out');
  const { archive, shards } = await realShards(dir);
  const options = { settings: { inputs: [archive] }, settingsHash: 'h1', inputs: [await fingerprintFile(archive)] };
  return { out, shards, options };
}

describe('output dir', () => {
  it('starts a new run clean: old final files, committed shards and temporary files of a killed run are gone', async () => {
    const { out, shards, options } = await setup();
    const first = await openOutputDir(out, { ...options, resume: false });
    if (first.kind !== 'open') throw new Error('a new run opens');
    await commitShard(out, shards[0].planned.shard, shards[0].output, false);
    await first.journal.append({ type: 'shard', shard: shards[0].planned.shard, failed: false });
    await first.journal.close();
    for (const name of ['transcripts.jsonl', 'report.json', 'transcripts.jsonl.tmp-1-0-0']) writeFileSync(join(out, name), 'old');
    writeFileSync(join(out, '.shards', '000009.shard.tmp-1-0-0'), 'half');

    const again = await openOutputDir(out, { ...options, resume: false });
    if (again.kind !== 'open') throw new Error('a new run opens');
    await again.journal.close();
    expect(again.reusable.size).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['.shards', 'journal.jsonl']);
    expect(readdirSync(join(out, '.shards'))).toEqual([]);
    expect((await readJournal(out))?.shards.size).toBe(0);
  });

  it('on --resume, continues the journal with its committed shards and drops only temporary and final files', async () => {
    const { out, shards, options } = await setup();
    const first = await openOutputDir(out, { ...options, resume: false });
    if (first.kind !== 'open') throw new Error('a new run opens');
    for (const { planned, output } of shards.slice(0, 2)) {
      await commitShard(out, planned.shard, output, false);
      await first.journal.append({ type: 'shard', shard: planned.shard, failed: false });
    }
    await first.journal.close();
    writeFileSync(join(out, 'transcripts.jsonl.tmp-1-0-0'), 'partial');

    const resumed = await openOutputDir(out, { ...options, resume: true });
    if (resumed.kind !== 'open') throw new Error('an unfinished run resumes');
    await resumed.journal.close();
    expect([...resumed.reusable.keys()]).toEqual([0, 1]);
    expect(existsSync(join(out, 'transcripts.jsonl.tmp-1-0-0'))).toBe(false);
    expect(readdirSync(join(out, '.shards'))).toEqual(['000000.shard', '000001.shard']);
  });

  it('on --resume, refuses changed settings with E_RESUME and touches nothing', async () => {
    const { out, shards, options } = await setup();
    const first = await openOutputDir(out, { ...options, resume: false });
    if (first.kind !== 'open') throw new Error('a new run opens');
    await commitShard(out, shards[0].planned.shard, shards[0].output, false);
    await first.journal.append({ type: 'shard', shard: shards[0].planned.shard, failed: false });
    await first.journal.close();
    await expect(openOutputDir(out, { ...options, settingsHash: 'h2', settings: { inputs: ['elsewhere'] }, resume: true })).rejects.toMatchObject({
      code: 'E_RESUME',
    });
    expect((await readJournal(out))?.shards.size).toBe(1);
    expect(readdirSync(join(out, '.shards'))).toEqual(['000000.shard']);
  });

  it('on --resume of a finished run, hands back its report.json and changes nothing', async () => {
    const { out, options } = await setup();
    const first = await openOutputDir(out, { ...options, resume: false });
    if (first.kind !== 'open') throw new Error('a new run opens');
    await first.journal.append({ type: 'done' });
    await first.journal.close();
    writeFileSync(join(out, 'report.json'), '{"transcripts":3}');
    writeFileSync(join(out, 'transcripts.jsonl'), 'final');
    expect(await openOutputDir(out, { ...options, resume: true })).toEqual({ kind: 'finished', report: { transcripts: 3 } });
    expect(existsSync(join(out, 'transcripts.jsonl'))).toBe(true);
  });
});
