import { join } from 'node:path';
import { REFS_FILE } from '../../refs/ref-file.js';
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
  /** Refs already written; bounded (see {@link SEEN_REFS_MAX}). */
  private readonly seenRefs = new Set<string>();

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
      if (this.refs) for (const run of this.newRefs(stored.refs)) await this.refs.write(run);
      this.committed.delete(this.next);
      this.onMerged(this.next, stored.report, stored.shard);
      this.next++;
    }
  }

  /**
   * Keeps each ref's first appearance only (refs are content hashes: a later copy holds the same data); once more than
   * {@link SEEN_REFS_MAX} refs were seen, a repeat of an old one may be written again, which is harmless. Returns the
   * runs of consecutive kept lines as views of `lines`, so nothing is copied and a shard of new refs is one write.
   */
  private newRefs(lines: Buffer): Buffer[] {
    const runs: Buffer[] = [];
    let runStart = -1;
    let from = 0;
    while (from < lines.length) {
      const nl = lines.indexOf(10, from);
      const end = nl === -1 ? lines.length : nl + 1;
      const ref = refOfLine(lines.subarray(from, end));
      const keep = !this.seenRefs.has(ref);
      if (keep) {
        if (this.seenRefs.size >= SEEN_REFS_MAX) this.seenRefs.clear();
        this.seenRefs.add(ref);
      }
      if (keep && runStart === -1) runStart = from;
      if (!keep && runStart !== -1) {
        runs.push(lines.subarray(runStart, from));
        runStart = -1;
      }
      from = end;
    }
    if (runStart !== -1) runs.push(lines.subarray(runStart));
    return runs;
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

/**
 * How many refs the merge remembers for deduplication: a 1 GB archive has ~330k refs, and an unbounded set made the
 * main thread's memory grow with the archive. Repeats are mostly near each other (a re-read file, a system prompt), and
 * the set is emptied in shard order, so the output stays the same for any worker count.
 */
const SEEN_REFS_MAX = 100_000;

const PREFIX = '{"ref":"';

function refOfLine(line: Buffer): string {
  if (line.toString('latin1', 0, PREFIX.length) === PREFIX) {
    const end = line.indexOf(34, PREFIX.length);
    if (end !== -1) return line.toString('utf8', PREFIX.length, end);
  }
  return (JSON.parse(line.toString('utf8')) as { ref: string }).ref;
}
