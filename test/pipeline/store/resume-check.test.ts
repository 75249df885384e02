import { appendFileSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type FileFingerprint, fingerprintFile } from '../../../src/io/fingerprint.js';
import { createJob } from '../../../src/pipeline/job/job.js';
import { resolveRunSettings } from '../../../src/pipeline/job/settings.js';
import type { JournalHeader } from '../../../src/pipeline/store/journal.js';
import { checkResume, checkSameShard } from '../../../src/pipeline/store/resume-check.js';
import { parseCompactConfig } from '../../../src/strategies/compact-config.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { TEST_STRATEGIES } from '../helpers.js';
import { plannedShards } from './real-shards.js';

/** The settings a run journals, as `run ARCHIVE --strategy ... [--keep-last N]` resolves them. */
function settingsOf(archive: string, extra: Record<string, unknown> = {}) {
  return resolveRunSettings({ inputs: [archive], shardBytes: 64 * 1024 }, createJob(parseCompactConfig({ strategies: TEST_STRATEGIES, ...extra })));
}

function headerOf(archive: string, inputs: FileFingerprint[], extra: Record<string, unknown> = {}): JournalHeader {
  const { settings, settingsHash } = settingsOf(archive, extra);
  return { type: 'run', version: 1, settings, settingsHash, inputs };
}

/** checkResume's error, or undefined when it lets the resume go on. */
function refusal(check: () => void): { code: string; message: string } | undefined {
  try {
    check();
    return undefined;
  } catch (err) {
    const { code, message } = err as { code: string; message: string };
    return { code, message };
  }
}

describe('resume check', () => {
  it('lets a resume go on with the same settings and untouched inputs', async () => {
    const dir = tempDir('resume-check');
    const { archive } = await plannedShards(dir);
    const header = headerOf(archive, [await fingerprintFile(archive)]);
    const now = settingsOf(archive);
    const again = await fingerprintFile(archive);
    expect(refusal(() => checkResume(header, now.settings, now.settingsHash, [again]))).toBeUndefined();
  });

  it('refuses a changed configuration with E_RESUME, naming each changed setting and its two values', async () => {
    const dir = tempDir('resume-check');
    const { archive } = await plannedShards(dir);
    const inputs = [await fingerprintFile(archive)];
    const header = headerOf(archive, inputs);
    const now = settingsOf(archive, { keepLast: 2 });
    expect(refusal(() => checkResume(header, now.settings, now.settingsHash, inputs))).toEqual({
      code: 'E_RESUME',
      message: 'the configuration changed since the journal was written (config.keepLast: 0 -> 2); run again without --resume to start over',
    });
  });

  it('refuses a changed input, saying how: size, same size with other content, mtime, a new file, a removed one', async () => {
    const dir = tempDir('resume-check');
    const { archive } = await plannedShards(dir);
    const now = settingsOf(archive);
    const check = async (before: FileFingerprint[], after: FileFingerprint[]) =>
      refusal(() => checkResume(headerOf(archive, before), now.settings, now.settingsHash, after));

    const original = await fingerprintFile(archive);
    const bytes = readFileSync(archive);
    appendFileSync(archive, '{"id":"late","messages":[]}\n');
    expect(await check([original], [await fingerprintFile(archive)])).toEqual({
      code: 'E_RESUME',
      message: `the input changed since the journal was written (${archive}: size ${bytes.length} -> ${bytes.length + 28} bytes); run again without --resume to start over`,
    });

    // The same size, another byte, the old mtime back: only the content hash tells.
    const edited = Buffer.from(bytes);
    edited[1] = edited[1] === 0x61 ? 0x62 : 0x61;
    writeFileSync(archive, edited);
    utimesSync(archive, new Date(original.mtimeMs), new Date(original.mtimeMs));
    expect((await check([original], [await fingerprintFile(archive)]))?.message).toContain(`(${archive}: content changed (same size))`);

    writeFileSync(archive, bytes);
    utimesSync(archive, new Date(original.mtimeMs + 5_000), new Date(original.mtimeMs + 5_000));
    expect((await check([original], [await fingerprintFile(archive)]))?.message).toMatch(
      new RegExp(`\\(${archive.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: modified \\(mtime .+ -> .+\\)\\)`),
    );

    const other = join(dir, 'other.jsonl');
    writeFileSync(other, bytes);
    const otherPrint = await fingerprintFile(other);
    expect((await check([original], [original, otherPrint]))?.message).toContain(`(${other}: new file)`);
    expect((await check([original, otherPrint], [original]))?.message).toContain(`(${other}: removed)`);
  });

  it('names five changed inputs and counts the rest', async () => {
    const dir = tempDir('resume-check');
    const { archive } = await plannedShards(dir);
    const now = settingsOf(archive);
    const prints: FileFingerprint[] = [];
    for (let i = 0; i < 7; i++) {
      const path = join(dir, `part-${i}.jsonl`);
      writeFileSync(path, readFileSync(archive));
      prints.push(await fingerprintFile(path));
    }
    const message = refusal(() => checkResume(headerOf(archive, []), now.settings, now.settingsHash, prints))?.message ?? '';
    expect(message.match(/: new file/g)).toHaveLength(5);
    expect(message).toContain('; and 2 more)');
  });

  it('refuses another list of inputs, naming those added and removed, before any setting', async () => {
    const dir = tempDir('resume-check');
    const { archive } = await plannedShards(dir);
    const others = [1, 2, 3, 4, 5, 6].map((i) => join(dir, `session-${i}.jsonl`));
    const listed = (inputs: string[]) => resolveRunSettings({ inputs, shardBytes: 64 * 1024 }, createJob(parseCompactConfig({ strategies: TEST_STRATEGIES })));
    const was = listed([archive]);
    const header: JournalHeader = { type: 'run', version: 1, settings: was.settings, settingsHash: was.settingsHash, inputs: [] };
    const now = listed(others);
    expect(refusal(() => checkResume(header, now.settings, now.settingsHash, []))).toEqual({
      code: 'E_RESUME',
      message: `the list of inputs changed since the journal was written (6 added: ${others.slice(0, 5).join(', ')} and 1 more; 1 removed: ${archive}); run again without --resume to start over`,
    });
    const twice = listed([archive, archive]);
    expect(refusal(() => checkResume(header, twice.settings, twice.settingsHash, []))?.message).toContain('(the same inputs, in another order or repeated)');
  });

  it('accepts a committed shard equal to the planned one, and refuses one whose bytes differ, naming where', async () => {
    const dir = tempDir('resume-check');
    const { planned } = await plannedShards(dir);
    const [first] = planned.map((p) => p.shard);
    if (first.kind !== 'range') throw new Error('a canonical archive plans range shards');
    expect(() => checkSameShard(first, { ...first })).not.toThrow();
    expect(refusal(() => checkSameShard({ ...first, sha256: '0'.repeat(64) }, first))).toEqual({
      code: 'E_RESUME',
      message: `the input changed since the journal was written (shard 0, ${first.file} bytes ${first.start}-${first.end}, differs from the committed one); run again without --resume to start over`,
    });
  });
});
