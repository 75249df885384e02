import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { type LlmSession, createLlmSession } from '../../llm/session.js';
import { withModelSummarizer } from '../../strategies/auto.js';
import { buildSteps } from '../../strategies/build-steps.js';
import type { PipelineStep } from '../../strategies/runner.js';
import { fsyncDir } from '../../io/atomic-file.js';
import { fingerprintFile } from '../../io/fingerprint.js';
import { resolveInputSources } from '../plan/input-sources.js';
import { readJournal } from '../store/journal.js';
import { createAsyncStage } from './async-stage.js';
import { OrderedWriter, REPORT_JSON } from '../store/ordered-writer.js';
import { openOutputDir } from '../store/output-dir.js';
import { planShards } from '../plan/plan-shards.js';
import { renderRunReport } from './report-markdown.js';
import { checkSameShard } from '../store/resume-check.js';
import { DEFAULTS, IN_FLIGHT_PER_WORKER, type RunOptions, type RunProgress, defaultWorkers } from './run-options.js';
import type { RunReport } from '../store/run-report.js';
import { resolveRunSettings } from './run-settings.js';
import type { ShardDescriptor, ShardReport } from '../shard/types.js';
import { type ExecutionCounts, createShardExecutor } from './dispatch-shard.js';
import { removeShardsDir, shardPath } from '../store/shard-store.js';
import { Slots } from './slots.js';
import { ShardPool } from './worker-pool.js';
import { runBatchRounds } from './batch-rounds.js';
import { TcompactError } from '../../errors.js';
import { BatchJournal } from '../../llm/batch-journal.js';

export type RunOutcome =
  { status: 'done'; report: RunReport; outDir: string; reportPath: string } | { status: 'interrupted'; outDir: string; committedShards: number };

/** The answer cache of the LLM stage, kept in DIR so a re-run or a resume pays nothing twice. */
export const LLM_CACHE_DIR = 'llm-cache';

/**
 * `tcompact run`: plans shards in input order, runs them on the worker pool with a bounded number in flight, commits
 * each one atomically and journals it, and merges them in order into the final files. Expected failures of input lines
 * end up in errors.jsonl; a worker crash costs only its shard (retried, then E_WORKER); a failure to write output (disk
 * full) stops the run without final files, and `--resume` continues from the committed shards.
 */
export async function runPipeline(options: RunOptions, prepared?: { steps: PipelineStep[] }): Promise<RunOutcome> {
  const started = performance.now();
  const { outDir } = options;
  const config = options.llm === undefined ? options.config : withModelSummarizer(options.config);
  // E_CONFIG here, before any worker starts or any file is touched (the CLI has built them already, validating its flags).
  const steps = prepared?.steps ?? buildSteps(config);
  const run = resolveRunSettings({ ...options, config }, steps);
  if (options.queue && run.llm?.options.batch)
    throw new TcompactError('E_USAGE', 'the Batch API mode (--batch) runs on one machine: it cannot be combined with --queue');
  const workers = options.workers ?? defaultWorkers();
  const sources = await resolveInputSources(options.inputs, run.maxLineBytes, options.from);
  const fingerprints = await Promise.all([...new Set(sources.map((s) => s.file))].map((f) => fingerprintFile(f)));
  const bytesTotal = fingerprints.reduce((n, f) => n + f.size, 0);

  const opened = await openOutputDir(outDir, { resume: options.resume === true, settings: run.settings, settingsHash: run.settingsHash, inputs: fingerprints });
  if (opened.kind === 'finished') return { status: 'done', report: opened.report, outDir, reportPath: join(outDir, REPORT_JSON) };
  const { journal, reusable } = opened;

  // A first stop (Ctrl-C) ends the planning and lets shards in flight commit; `abort` (a second one) drops them too.
  const stopController = new AbortController();
  const stop = (): void => stopController.abort();
  for (const signal of [options.stop, options.abort]) {
    signal?.addEventListener('abort', stop, { once: true });
    if (signal?.aborted) stop();
  }
  const abort = options.abort ?? new AbortController().signal;
  let fatal: unknown;
  const fail = (err: unknown): void => {
    fatal ??= err;
    stop();
  };

  const progress: RunProgress = { bytesDone: 0, bytesTotal, transcripts: 0, tokensSaved: 0, errors: 0, shardsDone: 0 };
  const countProgress = (shard: ShardDescriptor, report: ShardReport): void => {
    progress.bytesDone += shard.kind === 'range' ? shard.end - shard.start : shard.approxBytes;
    progress.transcripts += report.transcripts.length;
    for (const t of report.transcripts) progress.tokensSaved += t.tokensBefore - t.tokensAfter;
    progress.errors += report.counts.lines.failed;
    progress.shardsDone++;
    options.onProgress?.({ ...progress, ...(queued ? { workersSeen: queued.stats.workersSeen } : {}) });
  };

  let llm: LlmSession | undefined;
  let afterShard = options.afterShard;
  if (run.llm) {
    const batch = run.llm.options.batch ? { ...run.llm.options.batch, dir: outDir } : undefined;
    if (!batch && (await BatchJournal.open(outDir)).outstanding().length > 0)
      throw new TcompactError('E_USAGE', `${outDir} has batches of the Batch API still outstanding: resume with --batch (add --batch-cancel to cancel them)`);
    llm = await createLlmSession(
      { ...options.llm, model: run.llm.options.model, cacheDir: join(outDir, LLM_CACHE_DIR), ...(batch ? { batch } : {}) },
      { signal: abort, ...(options.onBatchProgress ? { onBatchProgress: options.onBatchProgress } : {}) },
    );
    afterShard = createAsyncStage({ llm, config, steps });
  }
  const execution: ExecutionCounts = { shards: 0, reusedShards: 0, retriedShards: 0, failedShards: 0 };
  const heapMb = options.workerHeapMb ?? DEFAULTS.workerHeapMb;
  // The seam of a distributed run: shards go through a BullMQ queue instead of this process's pool. Imported only
  // then: BullMQ and ioredis add ~45 MB of RSS that a local run does not need.
  const queueRun = options.queue ? await import('./distributed/queue-run.js') : undefined;
  const queued =
    queueRun && options.queue
      ? await queueRun.startQueueRun({
          ...options,
          queue: options.queue,
          ...run,
          journal,
          resume: options.resume === true,
          abort,
          afterShard,
          execution,
          localWorkers: workers,
          heapMb,
          onLost: fail,
        })
      : undefined;
  const pool = queued ? undefined : new ShardPool({ workers, heapMb, workerFile: options.workerFile, abort });
  const reused = new Set<number>();
  const writer = await OrderedWriter.open(outDir, config.refs, config.tokenizer, config.window, config.tokenizerEngine, (index, report, shard) => {
    if (reused.has(index)) countProgress(shard, report);
  });
  const execute = queued?.execute ?? createShardExecutor({ outDir, pool: pool as ShardPool, journal, job: run.job, abort, afterShard, execution });
  const slots = new Slots(queued?.window ?? workers * IN_FLIGHT_PER_WORKER);
  const running = new Set<Promise<void>>();

  const planOf = () =>
    planShards(sources, {
      shardBytes: run.shardBytes,
      maxItemsPerShard: run.maxItemsPerShard,
      maxLineBytes: run.maxLineBytes,
      from: options.from,
    });
  try {
    if (llm?.batcher && pool && afterShard) {
      const settled = await runBatchRounds({
        batcher: llm.batcher,
        cancel: llm.options.batch?.cancel === true,
        plan: planOf,
        reusable,
        pool,
        job: run.job,
        stage: afterShard,
        window: workers * IN_FLIGHT_PER_WORKER,
        stop: stopController.signal,
        abort,
      });
      if (!settled) stop();
    }
    const plan = planOf();
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
      const task = execute(planned)
        .then((output) => {
          if (!output) return;
          countProgress(shard, output.report);
          writer.commit(shard.index).catch(fail);
        })
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
    if (queued) report.distributed = queued.report();
    await writer.finish(`${JSON.stringify(report, null, 2)}\n`, renderRunReport(report, writer.report.archiveReport()));
    await fsyncDir(outDir);
    await journal.append({ type: 'done' });
    await journal.close();
    await removeShardsDir(outDir);
    await queued?.finish();
    return { status: 'done', report, outDir, reportPath: join(outDir, REPORT_JSON) };
  } finally {
    await llm?.close();
    await pool?.destroy();
    await queued?.close();
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
