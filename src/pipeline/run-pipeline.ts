import { stat } from 'node:fs/promises';
import { pathExists } from '../io/path-exists.js';
import { join } from 'node:path';
import type { LlmSession } from '../llm/session.js';
import type { PipelineStep } from '../strategies/runner.js';
import { fsyncDir } from '../io/atomic-file.js';
import { type FileFingerprint, fingerprintFile } from '../io/fingerprint.js';
import { resolveInputSources } from './plan/input-sources.js';
import { type PlannedShard, planShards } from './plan/plan-shards.js';
import { type Journal, type JournalState, readJournal } from './store/journal.js';
import { runFinalPaths } from './store/ordered-writer.js';
import { type OpenedOutput, openOutputDir } from './store/output-dir.js';
import { checkSameShard } from './store/resume-check.js';
import { removeShardsDir, shardPath } from './store/shard-store.js';
import { type Job, createJob } from './job/job.js';
import { DEFAULTS, defaultWorkers } from './job/capacity.js';
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
import { TcompactError } from '../errors.js';
import { BatchJournal } from '../llm/batch-journal.js';
import type { RunOptions, RunProgress } from './run-options.js';
import type { ShardDescriptor, ShardReport } from './shard/types.js';
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
 * `tcompact run` (and `compact`, in this thread), in four phases: plan (the job, its settings, the inputs), open (DIR,
 * the LLM session, the executor, the sink), execute (every shard run, settled and committed, at most `inFlight` at once)
 * and finish (merge, reports, journal). Expected failures of input lines end up in errors.jsonl; a worker crash costs
 * only its shard (retried, then E_WORKER); a failure to write output (disk full) stops the run without final files, and
 * `--resume` continues from the committed shards.
 */
export async function runPipeline(options: RunOptions, prepared: Prepared = {}): Promise<RunOutcome> {
  const started = performance.now();
  const plan = await planRun(options, prepared);
  const opened = await openOutputDir<RunReport>(options.outDir, {
    resume: options.resume === true,
    settings: plan.run.settings,
    settingsHash: plan.run.settingsHash,
    inputs: plan.fingerprints,
  });
  if (opened.kind === 'finished') return { status: 'done', report: opened.report, outDir: options.outDir, reportPath: plan.paths.reportJson };
  const run = await openRun(options, prepared, plan, opened);
  try {
    await execute(run);
    return await finish(run, started);
  } finally {
    await run.llm?.close();
    await run.executor.close();
  }
}

/** What a run does, decided before DIR is touched: E_CONFIG and E_USAGE come from here. */
interface RunPlan {
  job: Job;
  run: RunSettings;
  workers: number;
  fingerprints: FileFingerprint[];
  bytesTotal: number;
  paths: SinkPaths;
  /** A fresh plan of the shards, in input order (each pass reads the inputs again), hashing the ranges `hash` asks for. */
  shards: (hash?: (index: number) => boolean) => AsyncIterable<PlannedShard>;
}

async function planRun(options: RunOptions, prepared: Prepared): Promise<RunPlan> {
  const job = createJob(options.config, { model: options.llm !== undefined, ...(prepared.steps ? { steps: prepared.steps } : {}) });
  // The LLM stage and `compact` run steps in this thread.
  await job.prepare();
  const run = resolveRunSettings(options, job);
  if (options.queue && run.llm?.options.batch)
    throw new TcompactError('E_USAGE', 'the Batch API mode (--batch) runs on one machine: it cannot be combined with --queue');
  if (options.queueRetryMs !== undefined && !(Number.isInteger(options.queueRetryMs) && options.queueRetryMs >= 0))
    throw new TcompactError('E_CONFIG', `queueRetryMs must be a whole number of milliseconds, 0 or more (got ${options.queueRetryMs})`);
  const sources = await resolveInputSources(options.inputs, run.maxLineBytes, options.from);
  const files = [...new Set(sources.map((s) => s.file))];
  // A SQLite store changes in its WAL as much as in its file: a resume must see both (see storeLogs).
  const fingerprints = await Promise.all([...files, ...(await storeLogs(files))].map((f) => fingerprintFile(f)));
  const { outDir } = options;
  return {
    job,
    run,
    workers: options.workers ?? defaultWorkers(),
    fingerprints,
    bytesTotal: fingerprints.reduce((n, f) => n + f.size, 0),
    paths: prepared.output?.paths ?? { ...runFinalPaths(outDir), reportHtml: join(outDir, RUN_HTML) },
    shards: (hash) =>
      planShards(sources, {
        shardBytes: run.shardBytes,
        maxItemsPerShard: run.maxItemsPerShard,
        maxLineBytes: run.maxLineBytes,
        from: options.from,
        ...(options.sessions ? { sessions: options.sessions } : {}),
        ...(hash ? { hash } : {}),
      }),
  };
}

/** A run with DIR open: its journal, shards an earlier run committed, and the parts that do the work. */
interface OpenRun {
  options: RunOptions;
  plan: RunPlan;
  journal: Journal;
  reusable: JournalState['shards'];
  control: RunControl;
  execution: ExecutionCounts;
  llm: LlmSession | undefined;
  llmStage: ShardHook | undefined;
  executor: Executor;
  sink: RunSink;
  progress: ProgressCounter;
}

async function openRun(options: RunOptions, prepared: Prepared, plan: RunPlan, opened: OpenedOutput<RunReport> & { kind: 'open' }): Promise<OpenRun> {
  const { journal, reusable, resume } = opened;
  const { job, run } = plan;
  const control = new RunControl(options);
  const execution: ExecutionCounts = { shards: 0, reusedShards: 0, retriedShards: 0, failedShards: 0 };
  let llm: LlmSession | undefined;
  let executor: Executor;
  try {
    llm = run.llm ? await openLlm(options, run, control.abort) : undefined;
    executor = await openExecutor(options, run, { workers: plan.workers, abort: control.abort, execution, onLost: (err) => control.fail(err) });
  } catch (err) {
    await llm?.close();
    await journal.close();
    throw err;
  }
  const progress = new ProgressCounter(options, plan.bytesTotal, 'stats' in executor ? (executor.stats as { workersSeen: number }) : undefined);
  const model = run.llm?.options.model;
  let sink: RunSink;
  try {
    sink = await RunSink.open({
      outDir: options.outDir,
      paths: plan.paths,
      config: job.config,
      tool: prepared.output?.tool ?? 'run',
      showSecrets: options.showSecrets ?? false,
      settings: reportSettings(
        job.config,
        job.steps.map((s) => s.strategy.name),
        { shardBytes: run.shardBytes, ...(model ? { model } : {}) },
      ),
      onMerged: (index, report, shard) => progress.merged(index, shard, report),
      writer: { journal, resume, releaseSettled: true },
    });
  } catch (err) {
    await llm?.close();
    await executor.close();
    await journal.close();
    throw err;
  }
  return { options, plan, journal, reusable, control, execution, llm, llmStage: llm ? createLlmStage(job, llm) : undefined, executor, sink, progress };
}

/**
 * Every shard in input order: one an earlier run committed is merged as it is; any other runs on the executor, is
 * settled (stand-in, LLM stage and the caller's hook, commit, journal) and merged. In batch mode the Batch API phase
 * comes first. A first stop ends the planning and lets shards in flight commit; a failure stops the run.
 */
async function execute(r: OpenRun): Promise<void> {
  const { options, plan, control, execution, sink, executor } = r;
  const afterShard = r.llmStage ? chainHooks(r.llmStage, options.afterShard) : options.afterShard;
  const settleDeps = {
    outDir: options.outDir,
    journal: r.journal,
    abort: control.abort,
    execution,
    commit: sink.settle.bind(sink),
    ...(afterShard ? { afterShard } : {}),
  };
  const slots = new Slots(executor.inFlight);
  const running = new Set<Promise<void>>();
  const fail = (err: unknown): void => control.fail(err);
  try {
    if (r.llm?.batcher && r.llmStage) {
      const { gatherBatches } = await import('./executors/batch-gather.js');
      const settled = await gatherBatches({
        batcher: r.llm.batcher,
        cancel: r.llm.options.batch?.cancel === true,
        plan: () => plan.shards(),
        reusable: r.reusable,
        executor,
        stage: r.llmStage,
        stop: control.stopped,
        abort: control.abort,
      });
      if (!settled) control.stop();
    }
    // The ranges of reused shards are hashed here, to match their journaled hashes; the others' workers hash them.
    for await (const planned of plan.shards((index) => r.reusable.get(index)?.failed === false)) {
      if (control.stopped.aborted) break;
      const { shard } = planned;
      execution.shards = shard.index + 1;
      const prior = r.reusable.get(shard.index);
      if (prior && !prior.failed) {
        checkSameShard(prior.shard, shard);
        if (await pathExists(shardPath(options.outDir, shard.index))) {
          r.progress.reused.add(shard.index);
          execution.reusedShards++;
          sink.commit(shard.index).catch(fail);
          continue;
        }
      }
      if (!(await slots.acquire(control.stopped))) break;
      const task = (async () => {
        const result = await executor.run(planned);
        const output = result && (await settleShard(planned, result, settleDeps));
        if (!output) return;
        r.progress.settled(shard, output.report);
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
}

/** The merge completed into the final files and reports, or, after a stop or a failure, nothing final at all. */
async function finish(r: OpenRun, started: number): Promise<RunOutcome> {
  const { options, control, sink, journal, execution } = r;
  const { outDir } = options;
  if (control.fatal !== undefined || control.stopped.aborted) {
    await sink.close();
    await journal.close();
    if (control.fatal !== undefined) throw control.fatal;
    const state = await readJournal(outDir);
    return { status: 'interrupted', outDir, committedShards: state?.shards.size ?? 0 };
  }
  let report: RunReport;
  try {
    await sink.drained(execution.shards);
    await r.llm?.close();
    const distributed = r.executor.report?.();
    report = await sink.finish(
      { inputs: options.inputsLabel ?? options.inputs, workers: r.plan.workers, execution, wallMs: performance.now() - started, bytes: r.plan.bytesTotal },
      { ...(r.llm ? { llm: r.llm.usage() } : {}), ...(distributed ? { distributed } : {}) },
    );
    await fsyncDir(outDir);
    await journal.append({ type: 'done' });
  } catch (err) {
    // Disk full while finishing: the committed shards, the merged files and the journal stay for --resume.
    await sink.close();
    await journal.close();
    throw err;
  }
  await journal.close();
  await removeShardsDir(outDir);
  await r.executor.finish?.();
  return { status: 'done', report, outDir, reportPath: r.plan.paths.reportJson };
}

/**
 * Stop and abort of a run: a first stop (Ctrl-C) ends the planning and lets shards in flight commit; `abort` (a second
 * one) drops them too; the first failure stops the run and is what it throws.
 */
class RunControl {
  private readonly stopController = new AbortController();
  readonly abort: AbortSignal;
  fatal: unknown;

  constructor(options: Pick<RunOptions, 'stop' | 'abort'>) {
    for (const signal of [options.stop, options.abort]) {
      signal?.addEventListener('abort', () => this.stop(), { once: true });
      if (signal?.aborted) this.stop();
    }
    this.abort = options.abort ?? new AbortController().signal;
  }

  get stopped(): AbortSignal {
    return this.stopController.signal;
  }

  stop(): void {
    this.stopController.abort();
  }

  fail(err: unknown): void {
    this.fatal ??= err;
    this.stop();
  }
}

/** The progress a run reports after every settled shard, and for a reused shard when it is merged. */
class ProgressCounter {
  readonly reused = new Set<number>();
  private readonly progress: RunProgress;

  constructor(
    private readonly options: Pick<RunOptions, 'onProgress'>,
    bytesTotal: number,
    private readonly queueStats: { workersSeen: number } | undefined,
  ) {
    this.progress = { bytesDone: 0, bytesTotal, transcripts: 0, tokensSaved: 0, errors: 0, shardsDone: 0 };
  }

  merged(index: number, shard: ShardDescriptor, report: ShardReport): void {
    if (this.reused.has(index)) this.settled(shard, report);
  }

  settled(shard: ShardDescriptor, report: ShardReport): void {
    const p = this.progress;
    p.bytesDone += shard.kind === 'range' ? shard.end - shard.start : shard.approxBytes;
    p.transcripts += report.transcripts.length;
    for (const t of report.transcripts) p.tokensSaved += t.tokensBefore - t.tokensAfter;
    p.errors += report.counts.lines.failed;
    p.shardsDone++;
    this.options.onProgress?.({ ...p, ...(this.queueStats ? { workersSeen: this.queueStats.workersSeen } : {}) });
  }
}

/** The run's LLM session; outstanding batches of an earlier run must be resumed in batch mode or cancelled first. */
async function openLlm(options: RunOptions, run: RunSettings, abort: AbortSignal): Promise<LlmSession> {
  const { outDir } = options;
  const llmOptions = (run.llm as NonNullable<RunSettings['llm']>).options;
  const batch = llmOptions.batch ? { ...llmOptions.batch, dir: outDir } : undefined;
  if (!batch && (await BatchJournal.open(outDir)).outstanding().length > 0)
    throw new TcompactError('E_USAGE', `${outDir} has batches of the Batch API still outstanding: resume with --batch (add --batch-cancel to cancel them)`);
  // The client, its limiter and the Batch API: loaded only by a run whose steps call a model.
  const { createLlmSession } = await import('../llm/session.js');
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
      ...(options.queueGraceMs === undefined ? {} : { graceMs: options.queueGraceMs }),
      ...(options.queueRetryMs === undefined ? {} : { retryBackoffMs: options.queueRetryMs }),
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

/** The write-ahead logs (`NAME-wal`) beside the inputs that have one: a SQLite store's latest commits are there. */
async function storeLogs(files: readonly string[]): Promise<string[]> {
  const logs: string[] = [];
  for (const file of files) {
    const log = `${file}-wal`;
    if (
      await stat(log).then(
        (info) => info.isFile(),
        () => false,
      )
    )
      logs.push(log);
  }
  return logs;
}
