import { join } from 'node:path';
import { TcompactError } from '../../errors.js';
import { REFS_FILE, SIDE_STORE_HEADER } from '../../refs/ref-file.js';
import { AtomicFile } from '../../io/atomic-file.js';
import { releaseBuffer } from '../../io/release-buffer.js';
import { outputBuffers, outputBytes } from '../shard/encoding.js';
import { type ShardDescriptor, type ShardOutput, type ShardReport, describeShard } from '../shard/types.js';
import type { Journal } from './journal.js';
import { type MergedOffsets, MergedFile, NO_OFFSETS, mergedPath } from './merged-file.js';
import type { ResumePoint } from './resume-point.js';
import { type MergeableShard, commitMergedShard, commitShard, ensureShardsDir, heldShard, readShard } from './shard-store.js';

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

/** What the writer needs to commit shards itself, and where a resume picks the merged files up. */
export interface WriterOptions {
  journal?: Journal;
  resume?: Pick<ResumePoint, 'prefix' | 'offsets'>;
  /** Most bytes of out-of-order shards held in memory; one that does not fit is committed to its own file. */
  heldBytesMax?: number;
  /**
   * The outputs given to {@link OrderedWriter.settle} are the writer's, with every buffer their bytes lie in: those are
   * freed once the bytes are written (see releaseBuffer), and read as empty from then on. A run hands its shards over
   * so; by default the caller keeps them whole.
   */
  releaseSettled?: boolean;
}

/**
 * Out-of-order shards held in memory, in bytes: a few shards per worker, so on the usual path a shard that finishes
 * early waits here for its turn rather than being written to a file of its own and read back.
 */
const HELD_BYTES_MAX = 64 * 1024 * 1024;

/** A shard waiting for its turn: committed to its own file (`stored`), or only in memory (`held`). */
type Pending =
  { kind: 'stored'; held: MergeableShard | undefined; failed: boolean } | { kind: 'held'; shard: ShardDescriptor; output: ShardOutput; failed: boolean };

/**
 * Merges shards into the final files strictly in shard order, whatever order the workers finish in, so the output is
 * byte-identical for any worker count (like `parallel -k`). The final files grow in DIR/.shards (merged-file.ts) and
 * appear only when the run completes.
 *
 * A shard is written once on the usual path: when it is next in line, its sections go straight from memory into the
 * merged files, which are made durable before its commit (a small file with its report and the merged files' sizes,
 * then the journal entry with those sizes). A shard that finishes early is held in memory until its turn, within
 * {@link HELD_BYTES_MAX}; past that it is committed to its own file, dropped from memory and read back in its turn.
 * Shards committed elsewhere (by a remote worker, or reused by a resume) are merged from their files too. After a
 * failed shard (an E_WORKER stand-in, which a resume processes again), every later shard is committed to its own file
 * before it is merged, so a resume that cuts the merged files back before the failed shard loses none of them.
 */
export class OrderedWriter {
  private readonly pending = new Map<number, Pending>();
  private next = 0;
  private chain: Promise<void> = Promise.resolve();
  private heldBytes = 0;
  /** False once a failed shard was merged: from then on shards are merged from their own files only. */
  private straight = true;

  private constructor(
    private readonly paths: FinalPaths,
    private readonly outDir: string,
    private readonly transcripts: MergedFile,
    private readonly errors: MergedFile,
    private readonly refs: MergedFile | null,
    private readonly onMerged: MergedListener,
    private readonly options: WriterOptions,
  ) {}

  /**
   * `outDir` holds the committed shards and the merged files; `paths` are the final files (by default in `outDir`).
   * On a resume the merged files are cut back to the resume point; a side store that starts empty gets its header.
   */
  static async open(
    outDir: string,
    keepRefs: boolean,
    onMerged: MergedListener,
    paths: FinalPaths = runFinalPaths(outDir),
    options: WriterOptions = {},
  ): Promise<OrderedWriter> {
    const dir = await ensureShardsDir(outDir);
    const at = options.resume?.offsets ?? NO_OFFSETS;
    const opened: MergedFile[] = [];
    const create = async (role: keyof MergedOffsets, finalPath: string): Promise<MergedFile> => {
      const file = await MergedFile.open(mergedPath(dir, role), finalPath, at[role]);
      opened.push(file);
      return file;
    };
    try {
      const transcripts = await create('transcripts', paths.transcripts);
      const errors = await create('errors', paths.errors);
      const refs = keepRefs ? await create('refs', paths.refs) : null;
      // The header is part of the first shard's commit: it is synced with that shard's bytes, and the sizes journaled then count it.
      if (refs && at.refs === 0) await refs.append(Buffer.from(SIDE_STORE_HEADER));
      return new OrderedWriter(paths, outDir, transcripts, errors, refs, onMerged, options);
    } catch (err) {
      for (const file of opened) await file.close();
      throw err;
    }
  }

  /** Shards merged so far (all shards before this index). */
  get merged(): number {
    return this.next;
  }

  /**
   * Shard `index` is committed to its own file already (reused by a resume, or committed by a remote worker): merge it
   * and every shard now next in line. `held`, its output still in memory, is merged from there when the shard is next
   * in line, instead of reading its file back; a shard that has to wait is read back in its turn.
   */
  commit(index: number, held?: MergeableShard, failed = false): Promise<void> {
    this.pending.set(index, { kind: 'stored', held: index === this.next ? held : undefined, failed });
    return this.drain();
  }

  /**
   * Commits a shard that is only in memory (needs the journal). Next in line: resolves once it is merged and
   * committed. Early: resolves at once while it fits in memory (it commits in its turn; a failure then rejects the
   * shard's merge that reached it), else once it is committed to its own file.
   */
  async settle(shard: ShardDescriptor, output: ShardOutput, failed: boolean): Promise<void> {
    const { index } = shard;
    const size = this.heldSize(output);
    if (index !== this.next && this.heldBytes + size > (this.options.heldBytesMax ?? HELD_BYTES_MAX)) {
      await this.store(shard, output, failed);
      this.release(output);
      this.pending.set(index, { kind: 'stored', held: undefined, failed });
      return this.drain();
    }
    this.heldBytes += size;
    this.pending.set(index, { kind: 'held', shard, output, failed });
    if (index === this.next) return this.drain();
  }

  /** Commits a shard to its own file and journals it. */
  private async store(shard: ShardDescriptor, output: ShardOutput, failed: boolean): Promise<void> {
    await commitOrFail(shard, async () => {
      await commitShard(this.outDir, shard, output, failed);
      await this.journal().append({ type: 'shard', shard, failed });
    });
  }

  private journal(): Journal {
    if (!this.options.journal) throw new Error('ordered writer: committing a shard needs the journal');
    return this.options.journal;
  }

  /** Merges every shard now next in line; the merges run one at a time, and after a failure none runs again. */
  private drain(): Promise<void> {
    this.chain = this.chain.then(async () => {
      for (let entry = this.pending.get(this.next); entry; entry = this.pending.get(this.next)) {
        if (entry.kind === 'held') await this.mergeHeld(entry);
        else await this.mergeStored(this.next, entry);
        this.pending.delete(this.next);
        this.next++;
      }
    });
    return this.chain;
  }

  private async mergeHeld({ shard, output, failed }: Pending & { kind: 'held' }): Promise<void> {
    const straight = this.straight && !failed;
    if (!straight) await this.store(shard, output, failed);
    if (failed) this.straight = false;
    await this.append(heldShard(shard, output));
    if (straight) {
      // The bytes are durable before anything says the shard is committed.
      for (const file of this.files()) await file.sync();
      const merged = { transcripts: this.transcripts.size, errors: this.errors.size, refs: this.refs?.size ?? 0 };
      await commitOrFail(shard, async () => {
        await commitMergedShard(this.outDir, shard, output.report, merged);
        await this.journal().append({ type: 'shard', shard, failed: false, merged });
      });
    }
    this.heldBytes -= this.heldSize(output);
    this.release(output);
    this.onMerged(shard.index, output.report, shard);
  }

  /**
   * What holding `output` costs: when the outputs are the writer's, every buffer they own, as a body is reserved larger
   * than what is written and stored input lines keep the whole chunks they were read into; otherwise its bytes.
   */
  private heldSize(output: ShardOutput): number {
    if (!this.options.releaseSettled) return outputBytes(output);
    return outputBuffers(output).reduce((n, buffer) => n + buffer.byteLength, 0);
  }

  private release(output: ShardOutput): void {
    if (!this.options.releaseSettled) return;
    for (const buffer of outputBuffers(output)) releaseBuffer(new Uint8Array(buffer), { ownsBuffer: true });
  }

  private async mergeStored(index: number, { held, failed }: Pending & { kind: 'stored' }): Promise<void> {
    const stored = held ?? (await readShard(this.outDir, index));
    if (failed || ('failed' in stored && stored.failed === true)) this.straight = false;
    // A shard before the resume point is in the merged files already: only its report is wanted.
    if (index >= (this.options.resume?.prefix ?? 0)) {
      if ('merged' in stored && stored.merged) throw new Error(`ordered writer: shard ${index} is in the part of the merged files a resume cut off`);
      await this.append(stored);
    }
    this.onMerged(index, stored.report, stored.shard);
  }

  private async append(shard: Pick<MergeableShard, 'transcripts' | 'errors' | 'refs'>): Promise<void> {
    await this.transcripts.append(shard.transcripts);
    await this.errors.append(shard.errors);
    // Each shard's refs go as they are, in one call however many pieces: deduplicating across shards on this thread
    // cost more than the repeats it saved.
    await this.refs?.append(shard.refs);
  }

  private files(): MergedFile[] {
    return this.refs ? [this.transcripts, this.errors, this.refs] : [this.transcripts, this.errors];
  }

  /** Waits for pending merges; every shard below `total` must have been committed. */
  async drained(total: number): Promise<void> {
    await this.chain;
    if (this.next !== total) throw new Error(`ordered writer: ${this.next} of ${total} shards merged`);
  }

  /**
   * Writes the reports and moves every final file into place, report.json last. On a failure (disk full) the reports'
   * temporary files go and the merged files stay in DIR/.shards for a resume; report.json is then missing, which marks
   * the output incomplete.
   */
  async finish(reportJson: string, reportMd: string): Promise<void> {
    await this.chain;
    const reports: AtomicFile[] = [];
    try {
      const md = await AtomicFile.create(this.paths.reportMd);
      reports.push(md);
      const json = await AtomicFile.create(this.paths.reportJson);
      reports.push(json);
      await md.write(reportMd);
      await json.write(reportJson);
      for (const file of reports) await file.flush();
      for (const file of this.files()) await file.moveTo();
      for (const file of reports) await file.rename();
    } catch (err) {
      for (const file of reports) await file.discard();
      await this.close();
      throw err;
    }
  }

  /**
   * Stops without finishing (an interrupted or failed run): the merged files are closed and stay in DIR/.shards with
   * the committed shards, for a resume. Shards still held in memory were never committed and are dropped.
   */
  async close(): Promise<void> {
    await this.chain.catch(() => undefined);
    for (const file of this.files()) await file.close();
  }
}

/** A failure to commit a shard (its file or its journal entry), naming the shard; nothing of it is kept. */
async function commitOrFail(shard: ShardDescriptor, commit: () => Promise<void>): Promise<void> {
  try {
    await commit();
  } catch (err) {
    throw new TcompactError(
      'E_IO',
      `cannot commit shard ${shard.index} (${describeShard(shard)}): ${(err as Error).message}; nothing of this shard was kept. Fix the cause and run again with --resume`,
      { cause: err },
    );
  }
}
