import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fingerprintFile } from '../../../src/io/fingerprint.js';
import { Journal, readJournal } from '../../../src/pipeline/store/journal.js';
import { TcompactError } from '../../../src/errors.js';
import { canMount, mountTmpfs } from '../../helpers/small-disk.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { plannedShards } from './real-shards.js';

/** The journal of a real run's shards: what a resume trusts, read back the way a resume reads it. */
async function started(dir: string) {
  const { archive, planned } = await plannedShards(dir);
  const shards = planned.map((p) => ({ planned: p }));
  const header = { settings: { inputs: [archive], shardBytes: 65_536 }, settingsHash: 'hash-of-the-settings', inputs: [await fingerprintFile(archive)] };
  return { shards, header, journal: await Journal.create(dir, header) };
}

const journalText = (dir: string) => readFileSync(join(dir, 'journal.jsonl'), 'utf8');

describe('journal', () => {
  it('reads back the header, every committed shard by index, and done', async () => {
    const dir = tempDir('journal');
    const { shards, header, journal } = await started(dir);
    expect(shards.length).toBeGreaterThan(2);
    for (const { planned } of shards) await journal.append({ type: 'shard', shard: planned.shard, failed: planned.shard.index === 1 });
    await journal.append({ type: 'done' });
    await journal.close();

    const state = await readJournal(dir);
    expect(state?.header).toEqual({ type: 'run', version: 1, ...header });
    expect([...(state?.shards.keys() ?? [])]).toEqual(shards.map((s) => s.planned.shard.index));
    expect(state?.shards.get(0)).toEqual({ type: 'shard', shard: shards[0].planned.shard, failed: false });
    expect(state?.shards.get(1)?.failed).toBe(true);
    expect(state?.done).toBe(true);
    expect(state?.validBytes).toBe(Buffer.byteLength(journalText(dir)));
  });

  it('is not done until done is appended, and the last entry of a shard committed twice wins', async () => {
    const dir = tempDir('journal');
    const { shards, journal } = await started(dir);
    await journal.append({ type: 'shard', shard: shards[0].planned.shard, failed: true });
    await journal.append({ type: 'shard', shard: shards[0].planned.shard, failed: false });
    await journal.close();
    const state = await readJournal(dir);
    expect(state?.done).toBe(false);
    expect(state?.shards.size).toBe(1);
    expect(state?.shards.get(0)?.failed).toBe(false);
  });

  it('writes appends made without waiting in the order they were made, one whole line each', async () => {
    const dir = tempDir('journal');
    const { shards, journal } = await started(dir);
    const order = [...shards].reverse();
    await Promise.all(order.map(({ planned }) => journal.append({ type: 'shard', shard: planned.shard, failed: false })));
    await journal.close();
    const lines = journalText(dir).trimEnd().split('\n').slice(1);
    expect(lines.map((l) => (JSON.parse(l) as { shard: { index: number } }).shard.index)).toEqual(order.map((s) => s.planned.shard.index));
  });

  it('ignores a torn last line (a kill mid-append), and reopen cuts it off before appending', async () => {
    const dir = tempDir('journal');
    const { shards, journal } = await started(dir);
    await journal.append({ type: 'shard', shard: shards[0].planned.shard, failed: false });
    await journal.close();
    const whole = journalText(dir);
    const torn = JSON.stringify({ type: 'shard', shard: shards[1].planned.shard, failed: false });
    appendFileSync(join(dir, 'journal.jsonl'), torn.slice(0, torn.length - 7));

    const state = await readJournal(dir);
    expect([...(state?.shards.keys() ?? [])]).toEqual([0]);
    expect(state?.validBytes).toBe(Buffer.byteLength(whole));

    const reopened = await Journal.reopen(dir, state?.validBytes ?? 0);
    await reopened.append({ type: 'shard', shard: shards[1].planned.shard, failed: false });
    await reopened.close();
    expect(journalText(dir)).toBe(`${whole}${torn}\n`);
    expect([...((await readJournal(dir))?.shards.keys() ?? [])]).toEqual([0, 1]);
  });

  it('skips a line that is not an entry, and a new journal replaces an old one whole', async () => {
    const dir = tempDir('journal');
    const { shards, header, journal } = await started(dir);
    await journal.append({ type: 'shard', shard: shards[0].planned.shard, failed: false });
    await journal.close();
    appendFileSync(join(dir, 'journal.jsonl'), '{"type":"shard","shard":{"index":-1},"failed":false}\nnot json\n{"type":"mystery"}\n');
    expect([...((await readJournal(dir))?.shards.keys() ?? [])]).toEqual([0]);

    await (await Journal.create(dir, { ...header, settingsHash: 'another' })).close();
    const fresh = await readJournal(dir);
    expect(fresh?.header.settingsHash).toBe('another');
    expect(fresh?.shards.size).toBe(0);
  });

  it('has no state without a journal, or when its header is not a run header', async () => {
    const dir = tempDir('journal');
    expect(await readJournal(dir)).toBeUndefined();
    writeFileSync(join(dir, 'journal.jsonl'), '{"type":"run","version":2,"settings":{},"settingsHash":"h","inputs":[]}\n');
    expect(await readJournal(dir)).toBeUndefined();
    writeFileSync(join(dir, 'journal.jsonl'), '{"type":"run","version":1,"settings":{},"settingsHash":"h","inputs":[]}');
    expect(await readJournal(dir)).toBeUndefined();
  });
});

describe.skipIf(!canMount('journal on a full tmpfs'))('journal on a full tmpfs', () => {
  it('fails an append with E_IO naming the journal, ends on its last complete entry, and takes no entry after it', async () => {
    const { shards, header } = await started(tempDir('journal'));
    const disk = mountTmpfs(64 * 1024);
    const journal = await Journal.create(disk.dir, header);
    try {
      writeFileSync(join(disk.dir, 'filler'), Buffer.alloc(128 * 1024));
    } catch {
      // The disk is full now, but for what is left of the journal's last page.
    }
    let appended = 0;
    let failure: unknown;
    while (failure === undefined && appended < 1000) {
      const shard = shards[appended % shards.length].planned.shard;
      await journal.append({ type: 'shard', shard, failed: false }).then(
        () => appended++,
        (err: unknown) => (failure = err),
      );
    }
    expect(TcompactError.isInstance(failure)).toBe(true);
    const path = join(disk.dir, 'journal.jsonl');
    expect((failure as TcompactError).toInfo()).toEqual({ code: 'E_IO', message: `cannot write ${path}: no space left on device (ENOSPC)` });
    await expect(journal.append({ type: 'done' })).rejects.toBe(failure);
    await journal.close();

    const text = journalText(disk.dir);
    expect(text.endsWith('\n')).toBe(true);
    expect(text.split('\n').filter((l) => l !== '')).toHaveLength(1 + appended);
    const state = await readJournal(disk.dir);
    expect(state?.validBytes).toBe(statSync(path).size);
    expect(state?.done).toBe(false);
  });
});
