import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { makeDir } from '../../io/make-dir.js';
import { removeStaleTemps } from '../../io/atomic-file.js';
import type { FileFingerprint } from '../../io/fingerprint.js';
import { Journal, type JournalState, readJournal } from './journal.js';
import { FINAL_FILES, REPORT_JSON } from './ordered-writer.js';
import { checkResume } from './resume-check.js';
import { FRESH_START, type ResumePoint, resumePoint } from './resume-point.js';
import { ensureShardsDir, removeShardsDir } from './shard-store.js';

export type OpenedOutput<Report> =
  /** `--resume` of a run that already completed: its report.json, nothing to do. */
  { kind: 'finished'; report: Report } | { kind: 'open'; journal: Journal; reusable: JournalState['shards']; resume: ResumePoint };

interface OutputDirOptions {
  resume: boolean;
  settings: Record<string, unknown>;
  settingsHash: string;
  inputs: readonly FileFingerprint[];
}

/**
 * Prepares DIR for a run: removes the temporary files a killed run left, and either continues the journal of an
 * unfinished run (`--resume`, refused with E_RESUME if the settings or an input changed) or starts a new one, with no
 * committed shard and no final file left from before (report.json goes first: its absence marks an incomplete output).
 */
export async function openOutputDir<Report>(outDir: string, options: OutputDirOptions): Promise<OpenedOutput<Report>> {
  await makeDir(outDir);
  await removeStaleTemps(outDir);
  await removeStaleTemps(await ensureShardsDir(outDir));
  const previous = options.resume ? await readJournal(outDir) : undefined;
  if (previous) {
    checkResume(previous.header, options.settings, options.settingsHash, options.inputs);
    const report = previous.done ? await readReport<Report>(outDir) : undefined;
    if (report) return { kind: 'finished', report };
  }
  for (const name of [...FINAL_FILES].reverse()) await rm(join(outDir, name), { force: true });
  if (previous && !previous.done) {
    const resume = await resumePoint(outDir, previous.shards);
    return { kind: 'open', journal: await Journal.reopen(outDir, previous.validBytes), reusable: resume.reusable, resume };
  }
  await removeShardsDir(outDir);
  await ensureShardsDir(outDir);
  const journal = await Journal.create(outDir, { settings: options.settings, settingsHash: options.settingsHash, inputs: [...options.inputs] });
  return { kind: 'open', journal, reusable: new Map(), resume: FRESH_START };
}

async function readReport<Report>(outDir: string): Promise<Report | undefined> {
  try {
    return JSON.parse(await readFile(join(outDir, REPORT_JSON), 'utf8')) as Report;
  } catch {
    return undefined;
  }
}
