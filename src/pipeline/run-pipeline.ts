import { access, mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type ErrorInfo, TcompactError } from '../errors.js';
import { type LlmOptions, parseLlmOptions } from '../llm/config.js';
import { type LlmSummarizer, createLlmSummarizer } from '../llm/summarizer.js';
import { buildSteps } from '../strategies/pipeline-config.js';
import { fsyncDir, removeStaleTemps } from './atomic-file.js';
import { failedShardOutput } from './failed-shard.js';
import { canonicalHash, fingerprintFile } from './fingerprint.js';
import { resolveInputSources } from './input-sources.js';
import { Journal, readJournal, type JournalState } from './journal.js';
import { createLlmStage, llmSplitIndex } from './llm-stage.js';
import { FINAL_FILES, OrderedWriter, REPORT_JSON } from './ordered-writer.js';
import { type PlannedShard, planShards } from './plan.js';
import { renderRunReport } from './report-markdown.js';
import { checkResume, checkSameShard } from './resume-check.js';
import { DEFAULTS, IN_FLIGHT_PER_WORKER, MAX_ATTEMPTS, type RunOptions, type RunProgress, defaultWorkers } from './run-options.js';
import type { RunReport } from './run-report.js';
import type { JobSettings, ShardDescriptor, ShardOutcome, ShardOutput, ShardReport } from './shard.js';
import { commitShard, ensureShardsDir, removeShardsDir, shardPath } from './shard-store.js';
import { Slots } from './slots.js';
import { ShardPool } from './worker-pool.js';

export type RunOutcome =
  | { status: 'done'; report: RunReport; outDir: string; reportPath: string }
  | { status: 'interrupted'; outDir: string; committedShards: number };

/**
 * `tcompact run`: plans shards in input order, runs them on the worker pool with a bounded number in flight, commits
 * each one atomically and journals it, and merges them in order into the final files. Expected failures of input lines
 * end up in errors.jsonl; a worker crash costs only its shard (retried, then E_WORKER); a failure to write output (disk
 * full) stops the run without final files, and `--resume` continues from the committed shards.
 */
export async function runPipeline(options: RunOptions): Promise<RunOutcome> {
  const started = performance.now();
  const { config, outDir } = options;
  const steps = buildSteps(config); // E_CONFIG here, before any worker starts or any file is touched
  const workers = options.workers ?? defaultWorkers();
  const maxLineBytes = options.maxLineBytes ?? DEFAULTS.maxLineBytes;
  const shardBytes = options.shardBytes ?? DEFAULTS.shardBytes;
  const maxItemsPerShard = options.maxItemsPerShard ?? DEFAULTS.maxItemsPerShard;

  const sources = await resolveInputSources(options.inputs, maxLineBytes, options.from);
  const files = [...new Set(sources.map((s) => s.file))];
  const fingerprints = await Promise.all(files.map((f) => fingerprintFile(f)));
  const bytesTotal = fingerprints.reduce((n, f) => n + f.size, 0);
  const llmOptions = options.llm === undefined ? undefined : parseLlmOptions(options.llm);
  const llmSplitAt = llmOptions ? llmSplitIndex(config, steps) : undefined;
  if (llmOptions && llmSplitAt === undefined && !llmOptions.removeTangents) {
    throw new TcompactError('E_CONFIG', `a model (${llmOptions.model}) is used by the summarizer step of "auto" or by --remove-tangents; the strategies ${config.strategies.join(', ')} have neither`);
  }
  /** Everything that decides the output bytes; `workers` is deliberately not in it. */
  const settings = { inputs: options.inputs, config, maxLineBytes, from: options.from ?? null, shardBytes, maxItemsPerShard, llm: llmOptions ? llmOutputSettings(llmOptions) : null };
  const settingsHash = canonicalHash(settings);
  const job: JobSettings = { config, configHash: settingsHash, maxLineBytes };
  if (llmSplitAt !== undefined) job.llmSplitAt = llmSplitAt;

  await mkdir(outDir, { recursive: true });
  await removeStaleTemps(outDir);
  await removeStaleTemps(await ensureShardsDir(outDir));
  const previous = options.resume ? await readJournal(outDir) : undefined;
  if (previous) {
    checkResume(previous.header, settings, settingsHash, fingerprints);
    const finished = previous.done ? await readExistingReport(outDir) : undefined;
    if (finished) return { status: 'done', report: finished, outDir, reportPath: join(outDir, REPORT_JSON) };
  }
  await removeFinalFiles(outDir);
  let journal: Journal;
  if (previous && !previous.done) journal = await Journal.reopen(outDir, previous.validBytes);
  else {
    await removeShardsDir(outDir);
    await ensureShardsDir(outDir);
    journal = await Journal.create(outDir, { settings, settingsHash, inputs: fingerprints });
  }
  const reusable: JournalState['shards'] = previous && !previous.done ? previous.shards : new Map();

  const progress: RunProgress = { bytesDone: 0, bytesTotal, transcripts: 0, tokensSaved: 0, errors: 0, shardsDone: 0 };
  const reused = new Set<number>();
  const countProgress = (shard: ShardDescriptor, report: ShardReport): void => {
    progress.bytesDone += shard.kind === 'range' ? shard.end - shard.start : shard.approxBytes;
    progress.transcripts += report.transcripts.length;
    for (const t of report.transcripts) progress.tokensSaved += t.tokensBefore - t.tokensAfter;
    progress.errors += report.counts.lines.failed;
    progress.shardsDone++;
    options.onProgress?.({ ...progress });
  };

  const execution = { shards: 0, reusedShards: 0, retriedShards: 0, failedShards: 0 };
  const stopController = new AbortController();
  const stop = (): void => stopController.abort();
  options.stop?.addEventListener('abort', stop, { once: true });
  options.abort?.addEventListener('abort', stop, { once: true });
  if (options.stop?.aborted || options.abort?.aborted) stop();
  const abort = options.abort ?? new AbortController().signal;
  let fatal: unknown;
  const fail = (err: unknown): void => {
    fatal ??= err;
    stop();
  };

  let llm: LlmSummarizer | undefined;
  let afterShard = options.afterShard;
  if (llmOptions) {
    llm = await createLlmSummarizer({ ...options.llm, model: llmOptions.model, cacheDir: join(outDir, LLM_CACHE_DIR) }, { signal: abort });
    afterShard = createLlmStage({ summarizer: llm, config, steps, splitAt: llmSplitAt, tangents: llmOptions.removeTangents });
  }
  const pool = new ShardPool({ workers, heapMb: options.workerHeapMb ?? DEFAULTS.workerHeapMb, workerFile: options.workerFile, abort });
  const writer = await OrderedWriter.open(outDir, config.refs, config.tokenizer, (index, report, shard) => {
    if (reused.has(index)) countProgress(shard, report);
  });
  const slots = new Slots(workers * IN_FLIGHT_PER_WORKER);
  const running = new Set<Promise<void>>();

  /** Runs one shard to a committed state: attempts, E_WORKER stand-in, main-thread hook, commit, journal. */
  const processShard = async ({ shard, items }: PlannedShard): Promise<void> => {
    let outcome: ShardOutcome | undefined;
    let lastError = '';
    for (let attempt = 1; attempt <= MAX_ATTEMPTS && outcome === undefined; attempt++) {
      if (abort.aborted) return;
      if (attempt === 2) execution.retriedShards++;
      try {
        outcome = await pool.run({ shard, items, job, attempt, faults: options.faults });
      } catch (err) {
        if (abort.aborted) return; // dropped on a hard stop: not committed, a resume does it again
        lastError = crashMessage(err);
      }
    }
    let output: ShardOutput;
    let failed = false;
    if (outcome?.ok) output = outcome.value;
    else {
      const error: ErrorInfo = outcome
        ? outcome.error
        : { code: 'E_WORKER', message: `the worker crashed on all ${MAX_ATTEMPTS} attempts at this shard (${describeShard(shard)}): ${lastError}` };
      output = await failedShardOutput(shard, items, error);
      failed = true;
      execution.failedShards++;
    }
    if (afterShard && !failed) {
      try {
        output = await afterShard(output, shard, abort);
      } catch (err) {
        if (abort.aborted) return; // dropped on a hard stop, as above
        throw err;
      }
    }
    try {
      await commitShard(outDir, shard, output, failed, options.faults?.enospcOnCommit?.includes(shard.index) === true);
      await journal.append({ type: 'shard', shard, failed });
    } catch (err) {
      throw new TcompactError('E_IO', `cannot commit shard ${shard.index} (${describeShard(shard)}): ${(err as Error).message}; nothing of this shard was kept. Fix the cause and run again with --resume`, { cause: err });
    }
    countProgress(shard, output.report);
    writer.commit(shard.index).catch(fail);
  };

  try {
    const plan = planShards(sources, { shardBytes, maxItemsPerShard, maxLineBytes, from: options.from });
    for await (const planned of plan) {
      if (stopController.signal.aborted) break;
      const { shard } = planned;
      execution.shards = shard.index + 1;
      const prior = reusable.get(shard.index);
      if (prior && !prior.failed) {
        checkSameShard(prior.shard, shard);
        if (await exists(shardPath(outDir, shard.index))) {
          reused.add(shard.index);
          execution.reusedShards++;
          writer.commit(shard.index).catch(fail);
          continue;
        }
      }
      if (!(await slots.acquire(stopController.signal))) break;
      const task = processShard(planned)
        .catch(fail)
        .finally(() => {
          slots.release();
          running.delete(task);
        });
      running.add(task);
    }
  } catch (err) {
    fail(err);
  }
  await Promise.all([...running]);

  try {
    if (fatal !== undefined || stopController.signal.aborted) {
      await writer.discard();
      await journal.close();
      if (fatal !== undefined) throw fatal;
      const state = await readJournal(outDir);
      return { status: 'interrupted', outDir, committedShards: state?.shards.size ?? 0 };
    }
    await writer.drained(execution.shards);
    await llm?.close();
    const report = writer.report.build({
      tool: 'tcompact',
      inputs: options.inputs,
      workers,
      execution,
      wallMs: performance.now() - started,
      bytes: bytesTotal,
    });
    if (llm) report.llm = llm.usage();
    await writer.finish(`${JSON.stringify(report, null, 2)}\n`, renderRunReport(report, writer.report.archiveReport()));
    await fsyncDir(outDir);
    await journal.append({ type: 'done' });
    await journal.close();
    await removeShardsDir(outDir);
    return { status: 'done', report, outDir, reportPath: join(outDir, REPORT_JSON) };
  } finally {
    await llm?.close();
    await pool.destroy();
  }
}

/** The answer cache of the LLM stage, kept in DIR so a re-run or a resume pays nothing twice. */
export const LLM_CACHE_DIR = 'llm-cache';

/** LLM options that can change the output (not the key, the concurrency, the timeout or the prices). */
function llmOutputSettings(o: LlmOptions): Record<string, unknown> {
  const { apiKey: _key, llmConcurrency: _c, timeoutMs: _t, priceIn: _pi, priceOut: _po, cacheDir: _cd, ...rest } = o;
  return rest;
}

function describeShard(shard: ShardDescriptor): string {
  if (shard.kind === 'range') return `${shard.file} lines ${shard.firstLine}-${shard.firstLine + shard.lines - 1}, bytes ${shard.start}-${shard.end}`;
  return `${shard.input} items ${shard.firstItem}-${shard.firstItem + shard.count - 1}`;
}

function crashMessage(err: unknown): string {
  const e = err as { message?: string; cause?: { message?: string }; code?: string };
  const message = e?.cause?.message ?? e?.message ?? String(err);
  return e?.code ? `${e.code}: ${message}` : message;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/** report.json goes first: its absence is what marks the output as incomplete. */
async function removeFinalFiles(outDir: string): Promise<void> {
  for (const name of [...FINAL_FILES].reverse()) await rm(join(outDir, name), { force: true });
}

async function readExistingReport(outDir: string): Promise<RunReport | undefined> {
  try {
    return JSON.parse(await readFile(join(outDir, REPORT_JSON), 'utf8')) as RunReport;
  } catch {
    return undefined;
  }
}
