import { join } from 'node:path';
import { REFS_FILE, SIDE_STORE_HEADER } from '../../refs/ref-file.js';
import { AtomicFile } from '../../io/atomic-file.js';
import type { ShardDescriptor, ShardReport } from '../shard/types.js';
import { type StoredShard, readShard } from './shard-store.js';

/** What the merge takes of a shard. */
export type MergeableShard = Omit<StoredShard, 'failed'>;

export const TRANSCRIPTS_FILE = 'transcripts.jsonl';
const ERRORS_FILE = 'errors.jsonl';
export const REPORT_JSON = 'report.json';
export const REPORT_MD = 'report.md';

/** Final files, in the order they are renamed into place; report.json goes last and marks a finished run. */
export const FINAL_FILES = [TRANSCRIPTS_FILE, ERRORS_FILE, REFS_FILE, REPORT_MD, REPORT_JSON] as const;

export type MergedListener = (index: number, report: ShardReport, shard: ShardDescriptor) => void;

/** Where the final files go: DIR/transcripts.jsonl... for `run`, FILE.jsonl, FILE.refs.jsonl... for `compact`. */
export interface FinalPaths {
  transcripts: string;
  errors: string;
  refs: string;
  reportMd: string;
  reportJson: string;
}

/** The final files of a run into DIR. */
export function runFinalPaths(outDir: string): FinalPaths {
  return {
    transcripts: join(outDir, TRANSCRIPTS_FILE),
    errors: join(outDir, ERRORS_FILE),
    refs: join(outDir, REFS_FILE),
    reportMd: join(outDir, REPORT_MD),
    reportJson: join(outDir, REPORT_JSON),
  };
}

/**
 * Merges committed shards into the final files strictly in shard order, whatever order the workers finish in, so the
 * output is byte-identical for any worker count (like `parallel -k`). Shards are read back from their committed files,
 * so the merge holds at most one shard in memory and works the same for shards reused by a resume. The final files
 * grow under temporary names and appear only when the run completes.
 */
export class OrderedWriter {
  private readonly committed = new Set<number>();
  private next = 0;
  private chain: Promise<void> = Promise.resolve();

  private constructor(
    private readonly paths: FinalPaths,
    private readonly outDir: string,
    private readonly transcripts: AtomicFile,
    private readonly errors: AtomicFile,
    private readonly refs: AtomicFile | null,
    private readonly onMerged: MergedListener,
  ) {}

  /** `outDir` holds the committed shards; `paths` are the final files (by default in `outDir`). */
  static async open(outDir: string, keepRefs: boolean, onMerged: MergedListener, paths: FinalPaths = runFinalPaths(outDir)): Promise<OrderedWriter> {
    const opened: AtomicFile[] = [];
    const create = async (path: string): Promise<AtomicFile> => {
      const file = await AtomicFile.create(path);
      opened.push(file);
      return file;
    };
    try {
      const transcripts = await create(paths.transcripts);
      const errors = await create(paths.errors);
      const refs = keepRefs ? await create(paths.refs) : null;
      await refs?.write(SIDE_STORE_HEADER);
      return new OrderedWriter(paths, outDir, transcripts, errors, refs, onMerged);
    } catch (err) {
      for (const file of opened) await file.discard();
      throw err;
    }
  }

  /** Shards merged so far (all shards before this index). */
  get merged(): number {
    return this.next;
  }

  /**
   * Records that shard `index` is committed and merges every shard that is now next in line. `held`, the committed
   * output still in memory, is merged from there when the shard is next in line, instead of reading its file back; a
   * shard that has to wait is dropped from memory and read back in its turn, so the merge still holds one at a time.
   */
  commit(index: number, held?: MergeableShard): Promise<void> {
    this.committed.add(index);
    this.chain = this.chain.then(() => this.drain(index === this.next ? held : undefined));
    return this.chain;
  }

  private async drain(held: MergeableShard | undefined): Promise<void> {
    while (this.committed.has(this.next)) {
      const stored = held ?? (await readShard(this.outDir, this.next));
      held = undefined;
      await this.transcripts.write(stored.transcripts);
      await this.errors.write(stored.errors);
      // Each shard's refs go as they are: deduplicating across shards on this thread cost more than the repeats it saved.
      await this.refs?.write(stored.refs);
      this.committed.delete(this.next);
      this.onMerged(this.next, stored.report, stored.shard);
      this.next++;
    }
  }

  /** Waits for pending merges; every shard below `total` must have been committed. */
  async drained(total: number): Promise<void> {
    await this.chain;
    if (this.next !== total) throw new Error(`ordered writer: ${this.next} of ${total} shards merged`);
  }

  /**
   * Writes the reports and moves every final file into place, report.json last. On a failure (disk full) every
   * temporary file goes; report.json is then missing, which marks the output incomplete.
   */
  async finish(reportJson: string, reportMd: string): Promise<void> {
    await this.chain;
    const files = [this.transcripts, this.errors, this.refs];
    try {
      const md = await AtomicFile.create(this.paths.reportMd);
      files.push(md);
      const json = await AtomicFile.create(this.paths.reportJson);
      files.push(json);
      await md.write(reportMd);
      await json.write(reportJson);
      for (const file of files) await file?.flush();
      for (const file of files) await file?.rename();
    } catch (err) {
      for (const file of files) await file?.discard();
      throw err;
    }
  }

  /** Drops the temporary final files (an interrupted or failed run). */
  async discard(): Promise<void> {
    await this.chain.catch(() => undefined);
    for (const file of [this.transcripts, this.errors, this.refs]) await file?.discard();
  }
}
