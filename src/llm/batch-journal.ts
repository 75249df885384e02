import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TcompactError } from '../errors.js';
import { writeFileAtomic } from '../io/atomic-file.js';
import { makeDir } from '../io/make-dir.js';
import type { BatchStatus } from './batch-api.js';

/** The batch journal's file and the folder of downloaded results, in the run's DIR. */
const BATCH_JOURNAL = 'batches.json';
const BATCH_RESULTS_DIR = 'batches';

/** One batch as journaled: written after its file is uploaded, again once it exists, and at each change of status. */
export interface BatchEntry {
  inputFileId: string;
  /** null until batches.create answered (a resume then looks the batch up by its input file before creating one). */
  batchId: string | null;
  /** `uploaded`: the input file exists, the batch may not. */
  status: BatchStatus | 'uploaded';
  /** The custom_id of every line, in order (the request's cache key), and the job label (transcript id) of each. */
  keys: string[];
  labels: string[];
  counts: { total: number; completed: number; failed: number };
  outputFileId: string | null;
  errorFileId: string | null;
  errors: string | null;
  /** Its results are in DIR/batches/ and in the answers. */
  collected: boolean;
}

interface JournalFile {
  version: 1;
  batches: BatchEntry[];
}

/**
 * What a batch run sent to the Batch API, kept in DIR/batches.json: every write is atomic (temp file, fsync, rename,
 * fsync of the folder) and happens before the run waits on what it wrote, so a run killed at any point and resumed
 * finds every batch it may have paid for.
 */
export class BatchJournal {
  private constructor(
    readonly dir: string,
    readonly entries: BatchEntry[],
  ) {}

  static async open(dir: string): Promise<BatchJournal> {
    const path = join(dir, BATCH_JOURNAL);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new BatchJournal(dir, []);
      throw err;
    }
    try {
      const parsed = JSON.parse(text) as JournalFile;
      if (parsed.version !== 1 || !Array.isArray(parsed.batches)) throw new Error('unknown layout');
      return new BatchJournal(dir, parsed.batches);
    } catch (err) {
      throw new TcompactError(
        'E_RESUME',
        `${path} cannot be read (${(err as Error).message}): it lists the batches this run paid for; restore it or start over in a new DIR`,
      );
    }
  }

  /** Outstanding: not collected yet. */
  outstanding(): BatchEntry[] {
    return this.entries.filter((e) => !e.collected);
  }

  async save(): Promise<void> {
    await makeDir(this.dir);
    const file: JournalFile = { version: 1, batches: this.entries };
    await writeFileAtomic(join(this.dir, BATCH_JOURNAL), [`${JSON.stringify(file)}\n`]);
  }

  resultsPath(batchId: string, kind: 'output' | 'error'): string {
    return join(this.dir, BATCH_RESULTS_DIR, `${batchId}.${kind}.jsonl`);
  }

  async saveResults(batchId: string, kind: 'output' | 'error', content: string): Promise<void> {
    await makeDir(join(this.dir, BATCH_RESULTS_DIR));
    await writeFileAtomic(this.resultsPath(batchId, kind), [content]);
  }

  async readResults(batchId: string, kind: 'output' | 'error'): Promise<string | undefined> {
    try {
      return await readFile(this.resultsPath(batchId, kind), 'utf8');
    } catch {
      return undefined;
    }
  }
}
