import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { type LlmSession, createLlmSession } from '../llm/session.js';
import type { PipelineStep } from '../strategies/runner.js';
import { fsyncDir } from '../io/atomic-file.js';
import { fingerprintFile } from '../io/fingerprint.js';
import { resolveInputSources } from './plan/input-sources.js';
import { type PlannedShard, planShards } from './plan/plan-shards.js';
import { readJournal } from './store/journal.js';
import { runFinalPaths } from './store/ordered-writer.js';
import { openOutputDir } from './store/output-dir.js';
import { checkSameShard } from './store/resume-check.js';
import { removeShardsDir, shardPath } from './store/shard-store.js';
import { createJob } from './job/job.js';
import { DEFAULTS, defaultWorkers } from './job/defaults.js';
import { type RunSettings, resolveRunSettings } from './job/settings.js';
import type { RunReport } from './sink/run-report.js';
import { RunSink, type SinkPaths, reportSettings } from './sink/run-sink.js';
import { createLlmStage } from './executors/llm-stage.js';
import type { ExecutionCounts, Executor } from './executors/executor.js';
import { createInProcessExecutor } from './executors/in-process-executor.js';
import { createPoolExecutor } from './executors/pool-executor.js';
import { settleShard } from './executors/settle-shard.js';
import type { ShardHook } from './executors/shard-hook.js';
import { Slots } from './executors/slots.js';
import { gatherBatches } from './executors/batch-gather.js';
import { TcompactError } from '../errors.js';
import { BatchJournal } from '../llm/batch-journal.js';
import type { RunOptions, RunProgress } from './run-options.js';
import type { ShardReport } from './shard/types.js';
import { RUN_HTML } from '../report/html/write-pages.js';

export type RunOutcome =
  { status: 'done'; report: RunReport; outDir: string; reportPath: string } | { status: 'interrupted'; outDir: string; committedShards: number };

/** The answer cache of the LLM stage, kept in DIR so a re-run or a resume pays nothing twice. */
const LLM_CACHE_DIR = 'llm-cache';

/** What a caller built already, and where a `compact` puts its final files. */
export interface Prepared {
  /** The steps, built and validated by the caller from the same config. */
  steps?: PipelineStep[];
  /** Final files elsewhere than DIR (FILE.jsonl, FILE.refs.jsonl... for `compact`), and the report's tool. */
  output?: { paths: SinkPaths; tool: 'compact' };
}

/**
 * `tcompact run` (and `compact`, in this thread): plans shards in input order, runs them on an executor with a bounded
 * number in flight, settles each one (stand-in, LLM stage, commit, journal), and merges them in order through the sink
 * into the final files and reports. Expected failures of input lines end up in errors.jsonl; a worker crash costs only
 * its shard (retried, then E_WORKER); a failure to write output (disk full) stops the run without final files, and
 * `--resume` continues from the committed shards.
 */
export async function runPipeline(options: RunOptions, prepared: Prepared = {}): Promise<RunOutcome> {
  const started = performance.now();
  const { outDir } = options;
  // E_CONFIG here, before any worker starts or any file is touched.
  const job = createJob(options.config, { model: options.llm !== undefined, ...(prepared.steps ? { steps: prepared.steps } : {}) });
  const run = resolveRunSettings(options, job);
  if (options.queue && run.llm?.options.batch)
    throw new TcompactError('E_USAGE', 'the Batch API mode (--batch) runs on one machine: it cannot be combined with --queue');
  const workers = options.workers ?? defaultWorkers();
  const sources = await resolveInputSources(options.inputs, run.maxLineBytes, options.from);
  const fingerprints = await Promise.all([...new Set(sources.map((s) => s.file))].map((f) => fingerprintFile(f)));
  const bytesTotal = fingerprints.reduce((n, f) => n + f.size, 0);
  const paths = prepared.output?.paths ?? { ...runFinalPaths(outDir), reportHtml: join(outDir, RUN_HTML) };

  const opened = await openOutputDir<RunReport>(outDir, {
    resume: options.resume === true,
    settings: run.settings,
    settingsHash: run.settingsHash,
    inputs: fingerprints,
  });
  if (opened.kind === 'finished') return { status: 'done', report: opened.report, outDir, reportPath: paths.reportJson };
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

  const execution: ExecutionCounts = { shards: 0, reusedShards: 0, retriedShards: 0, failedShards: 0 };
  const llm = run.llm ? await openLlm(options, run, outDir, abort) : undefined;
  const llmStage = llm ? createLlmStage(job, llm) : undefined;
  const afterShard = llmStage ? chainHooks(llmStage, options.afterShard) : options.afterShard;
  let executor: Executor | undefined;
  try {
    executor = await openExecutor(options, run, { workers, abort, execution, onLost: fail });
  } catch (err) {
    await llm?.close();
    await journal.close();
    throw err;
  }

  const progress: RunProgress = { bytesDone: 0, bytesTotal, transcripts: 0, tokensSaved: 0, errors: 0, shardsDone: 0 };
  const queueStats = 'stats' in executor ? (executor.stats as { workersSeen: number }) : undefined;
  const countProgress = (planned: Pick<PlannedShard, 'shard'>, report: ShardReport): void => {
    const { shard } = planned;
    progress.bytesDone += shard.kind === 'range' ? shard.end - shard.start : shard.approxBytes;
    progress.transcripts += report.transcripts.length;
    for (const t of report.transcripts) progress.tokensSaved += t.tokensBefore - t.tokensAfter;
    progress.errors += report.counts.lines.failed;
    progress.shardsDone++;
    options.onProgress?.({ ...progress, ...(queueStats ? { workersSeen: queueStats.workersSeen } : {}) });
  };
  const reused = new Set<number>();
  const model = run.llm?.options.model;
  const sink = await RunSink.open({
    outDir,
    paths,
    config: job.config,
    tool: prepared.output?.tool ?? 'run',
    settings: reportSettings(
      job.config,
      job.steps.map((s) => s.strategy.name),
      { shardBytes: run.shardBytes, ...(model ? { model } : {}) },
    ),
    onMerged: (index, report, shard) => {
      if (reused.has(index)) countProgress({ shard }, report);
    },
  });
  const settleDeps = { outDir, journal, abort, execution, ...(afterShard ? { afterShard } : {}) };
  const slots = new Slots(executor.inFlight);
  const running = new Set<Promise<void>>();
  const planOf = () =>
    planShards(sources, { shardBytes: run.shardBytes, maxItemsPerShard: run.maxItemsPerShard, maxLineBytes: run.maxLineBytes, from: options.from });

  try {
    if (llm?.batcher && llmStage) {
      const settled = await gatherBatches({
        batcher: llm.batcher,
        cancel: llm.options.batch?.cancel === true,
        plan: planOf,
        reusable,
        executor,
        stage: llmStage,
        stop: stopController.signal,
        abort,
      });
      if (!settled) stop();
    }
    for await (const planned of planOf()) {
      if (stopController.signal.aborted) break;
      const { shard } = planned;
      execution.shards = shard.index + 1;
      const prior = reusable.get(shard.index);
      if (prior && !prior.failed) {
        checkSameShard(prior.shard, shard);
        if (await exists(shardPath(outDir, shard.index))) {
          reused.add(shard.index);
          execution.reusedShards++;
          sink.commit(shard.index).catch(fail);
          continue;
        }
      }
      if (!(await slots.acquire(stopController.signal))) break;
      const ran = executor;
      const task = (async () => {
        const result = await ran.run(planned);
        const output = result && (await settleShard(planned, result, settleDeps));
        if (!output) return;
        countProgress(planned, output.report);
        sink.commit(shard.index).catch(fail);
      })()
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
      await sink.discard();
      await journal.close();
      if (fatal !== undefined) throw fatal;
      const state = await readJournal(outDir);
      return { status: 'interrupted', outDir, committedShards: state?.shards.size ?? 0 };
    }
    await sink.drained(execution.shards);
    await llm?.close();
    const distributed = executor.report?.();
    const report = await sink.finish(
      { inputs: options.inputs, workers, execution, wallMs: performance.now() - started, bytes: bytesTotal },
      { ...(llm ? { llm: llm.usage() } : {}), ...(distributed ? { distributed } : {}) },
    );
    await fsyncDir(outDir);
    await journal.append({ type: 'done' });
    await journal.close();
    await removeShardsDir(outDir);
    await executor.finish?.();
    return { status: 'done', report, outDir, reportPath: paths.reportJson };
  } finally {
    await llm?.close();
    await executor.close();
  }
}

/** The run's LLM session; outstanding batches of an earlier run must be resumed in batch mode or cancelled first. */
async function openLlm(options: RunOptions, run: RunSettings, outDir: string, abort: AbortSignal): Promise<LlmSession> {
  const llmOptions = (run.llm as NonNullable<RunSettings['llm']>).options;
  const batch = llmOptions.batch ? { ...llmOptions.batch, dir: outDir } : undefined;
  if (!batch && (await BatchJournal.open(outDir)).outstanding().length > 0)
    throw new TcompactError('E_USAGE', `${outDir} has batches of the Batch API still outstanding: resume with --batch (add --batch-cancel to cancel them)`);
  return createLlmSession(
    { ...options.llm, model: llmOptions.model, cacheDir: join(outDir, LLM_CACHE_DIR), ...(batch ? { batch } : {}) },
    { signal: abort, ...(options.onBatchProgress ? { onBatchProgress: options.onBatchProgress } : {}) },
  );
}

/**
 * The executor of a run: a BullMQ queue with `queue` (imported only then: BullMQ and ioredis add ~45 MB of RSS that a
 * local run does not need), this thread with `inProcess`, else the worker pool.
 */
async function openExecutor(
  options: RunOptions,
  run: RunSettings,
  o: { workers: number; abort: AbortSignal; execution: ExecutionCounts; onLost: (err: unknown) => void },
): Promise<Executor> {
  const heapMb = options.workerHeapMb ?? DEFAULTS.workerHeapMb;
  if (options.queue) {
    const { startQueueExecutor } = await import('./executors/queue/queue-executor.js');
    return startQueueExecutor({
      queue: options.queue,
      settingsHash: run.settingsHash,
      outDir: options.outDir,
      job: run.job,
      resume: options.resume === true,
      abort: o.abort,
      execution: o.execution,
      localWorkers: o.workers,
      heapMb,
      ...(options.workerFile ? { workerFile: options.workerFile } : {}),
      onLost: o.onLost,
    });
  }
  if (options.inProcess) return createInProcessExecutor(run.job, o.abort);
  return createPoolExecutor({
    workers: o.workers,
    heapMb,
    job: run.job,
    abort: o.abort,
    execution: o.execution,
    ...(options.workerFile ? { workerFile: options.workerFile } : {}),
  });
}

/** The LLM stage first, then the caller's own hook: a library caller's `afterShard` is kept, never replaced. */
function chainHooks(first: ShardHook, then: ShardHook | undefined): ShardHook {
  if (!then) return first;
  return async (output, shard, signal) => then(await first(output, shard, signal), shard, signal);
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
