import { join } from 'node:path';
import { REPORT_MD } from '../../pipeline/store/ordered-writer.js';
import { DEFAULT_SHARD_BYTES, DEFAULT_WORKER_HEAP_MB, defaultWorkers } from '../../pipeline/job/capacity.js';
import { runPipeline } from '../../pipeline/run-pipeline.js';
import { parseQueueUrl } from '../../pipeline/executors/queue/queue-url.js';
import { DEFAULT_QUEUE_GRACE_MS } from '../../pipeline/executors/queue/queue-timing.js';
import { percent } from '../../report/bars.js';
import { RUN_HTML } from '../../report/html/write-pages.js';
import { createProgress } from '../../report/progress.js';
import { defineCommand } from '../command.js';
import { SOURCE_FLAGS, inputsOrDiscovered } from '../source-flags.js';
import { TcompactError } from '../../errors.js';
import { integer, text } from '../flag-values.js';
import { booleanFlag, valueFlag } from '../flags.js';
import { READ_FLAGS } from '../input-flags.js';
import { compactFlagOverrides, loadCompactConfig } from '../config-file.js';
import { BATCH_FLAGS, LLM_FLAGS, llmOptionsFromFlags, llmStepOptionsFromFlags } from '../llm-flags.js';
import type { BatchProgress } from '../../llm/batcher.js';
import type { RunProgress } from '../../pipeline/run-options.js';
import { nothingYielded } from '../nothing-yielded.js';
import { EXIT } from '../exit-codes.js';
import { COMPACTION_FLAGS } from '../compaction-flags.js';
import { SECRET_FLAGS } from '../secret-flags.js';

const FLAGS = {
  out: valueFlag({ valueName: 'DIR', description: 'output directory', parse: text, required: 'see help' }),
  ...COMPACTION_FLAGS,
  ...READ_FLAGS,
  workers: valueFlag({
    valueName: 'N',
    description: 'worker threads',
    // 0 only with --queue: the coordinator alone.
    parse: (raw, at) => integer(at.given('queue') ? 0 : 1, 256)(raw, at),
    default: defaultWorkers(),
    shownDefault: `the number of cores, here ${defaultWorkers()}`,
  }),
  resume: booleanFlag({ description: 'reuse the shards an interrupted run of the same inputs and settings committed' }),
  'worker-heap-mb': valueFlag({
    valueName: 'N',
    description: 'heap limit of each worker; a worker over it fails alone',
    parse: integer(16),
    default: DEFAULT_WORKER_HEAP_MB,
  }),
  'shard-bytes': valueFlag({
    valueName: 'N',
    description: 'target size of a unit of work; a resume needs the same value',
    parse: integer(1024),
    default: DEFAULT_SHARD_BYTES,
  }),
  queue: valueFlag({
    valueName: 'URL',
    description:
      "distributed run: shards go to BullMQ jobs on Redis (redis://[user:pass@]HOST:PORT[/DB], or\nrediss:// for TLS) where 'tcompact worker' processes take them; --workers N local threads\ntake jobs too, --workers 0 only coordinates (see docs/scaling-out.md)",
    parse: parseQueueUrl,
  }),
  'queue-grace-ms': valueFlag({
    valueName: 'N',
    description: 'how long Redis may be unreachable before the run stops with E_QUEUE; --resume continues it',
    parse: integer(100),
    shownDefault: DEFAULT_QUEUE_GRACE_MS,
  }),
  quiet: booleanFlag({ description: 'no progress output' }),
  ...SOURCE_FLAGS,
  ...SECRET_FLAGS,
  ...LLM_FLAGS,
  ...BATCH_FLAGS,
};

export const runCommand = defineCommand({
  name: 'run',
  summary: 'compact whole archives on a worker pool: ordered, resumable output with errors and a report',
  usage: 'Usage: tcompact run [input...] --out DIR [options]',
  description: `Compacts every transcript of the inputs (canonical JSONL archives, or any format the adapters read) on a pool of
worker threads and writes, in DIR: transcripts.jsonl (in input order), errors.jsonl (one line per input line that
failed: file, line, byteOffset, code, message), refs.jsonl (the side store for 'tcompact restore'), report.json,
report.md and report.html (a self-contained page with charts). Output is byte-identical whatever the number of workers. Each shard of work commits atomically and is
journaled (DIR/journal.jsonl), so an interrupted run continues with --resume.
With no input, reads the current user's agent sessions ('tcompact sources' lists them), which the
--agent, --since, --until and --project flags select, and says on stderr which folders it read; --resume
then continues only if the sessions found are the very ones of the interrupted run.`,
  flags: FLAGS,
  notes: {
    llm: '(workers never call the network: the LLM steps run on the main thread)',
    batch: 'Ctrl-C while waiting leaves the batches running; --resume picks them up and never sends a request twice.',
  },
  epilogue: `Ctrl-C stops reading, lets the shards in flight finish and commit, and exits with 130; a second Ctrl-C drops
them. Exit codes: 0 nothing failed, 1 some input failed (see errors.jsonl), 2 usage or config error, 3 resume
refused (input or config changed), 74 a file could not be read or written (E_IO, e.g. disk full: --resume continues
once there is room), 130 interrupted.`,
  async run({ values, positionals }, io) {
    const [llm] = llmOptionsFromFlags('run', values);
    const { config, steps } = await loadCompactConfig(
      values.config,
      { ...compactFlagOverrides(values), options: llmStepOptionsFromFlags(values) },
      { model: llm !== undefined },
    );
    const { queue, workers, from } = values;
    const maxLineBytes = values['max-line-bytes'];
    const workerHeapMb = values['worker-heap-mb'];
    const shardBytes = values['shard-bytes'];
    const queueGraceMs = values['queue-grace-ms'];
    const { inputs, label, discovered, sessions } = await inputsOrDiscovered('run', positionals, values, io, values.out);

    const stop = new AbortController();
    const abort = new AbortController();
    const onSignal = (): void => {
      if (!stop.signal.aborted) {
        io.stderr.write('\ntcompact run: interrupted; finishing the shards in flight (Ctrl-C again to drop them)\n');
        stop.abort();
      } else abort.abort();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    const progress = createProgress(io.stderr, { quiet: values.quiet });
    let lastProgress: RunProgress = { bytesDone: 0, bytesTotal: 0, transcripts: 0, tokensSaved: 0, errors: 0, shardsDone: 0 };
    let note: string | undefined;
    const showProgress = (p: RunProgress): void => {
      lastProgress = p;
      progress.update(note === undefined ? p : { ...p, note });
    };
    try {
      const outcome = await runPipeline(
        {
          inputs,
          ...(discovered ? { inputsLabel: label, sessions } : {}),
          outDir: values.out,
          config,
          workers,
          resume: values.resume,
          showSecrets: values['show-secrets'],
          maxLineBytes,
          from,
          workerHeapMb,
          shardBytes,
          stop: stop.signal,
          abort: abort.signal,
          onProgress: showProgress,
          onBatchProgress: (b) => {
            note = batchNote(b);
            showProgress(lastProgress);
          },
          llm,
          queue,
          ...(queueGraceMs === undefined ? {} : { queueGraceMs }),
        },
        { steps },
      ).catch((err: unknown) => {
        // A refusal for the inputs (not the settings) of a run over the sessions found says why they changed.
        if (discovered && TcompactError.isInstance(err) && err.code === 'E_RESUME' && /^the (list of inputs|input) changed/.test(err.message))
          io.stderr.write(DISCOVERED_RESUME_NOTE);
        throw err;
      });
      progress.stop();
      if (outcome.status === 'interrupted') {
        if (llm?.batch)
          io.stderr.write(`tcompact run: the batches keep running on the server (see ${join(outcome.outDir, 'batches.json')}); --resume picks them up\n`);
        io.stderr.write(
          `tcompact run: stopped with ${outcome.committedShards} shards committed in ${outcome.outDir}; run the same command with --resume to finish\n`,
        );
        return EXIT.INTERRUPTED;
      }
      const r = outcome.report;
      io.stdout.write(
        `${r.transcripts} transcripts, ${r.tokens.before} -> ${r.tokens.after} tokens (${r.tokens.tokenizer}), saved ${r.tokens.saved} ` +
          `(${percent(r.tokens.saved, r.tokens.before)}); lines: ${r.lines.read} read, ${r.lines.ok} ok, ${r.lines.failed} failed, ${r.lines.skipped} skipped\n`,
      );
      if (r.llm) {
        const u = r.llm;
        io.stdout.write(
          `llm: ${u.requests} requests, ${u.promptTokens} prompt + ${u.completionTokens} completion tokens${u.costUsd === null ? '' : `, $${u.costUsd.toFixed(4)}`}, ${u.fallbacks.count} transcripts fell back\n`,
        );
      }
      if (r.llm?.batch) {
        const b = r.llm.batch;
        io.stdout.write(
          `batch: ${b.batches} batches, ${b.requests} requests: ${b.completed} answered, ${b.failed} failed, ${b.expired} expired or cancelled, ${b.retriedOnline} asked again online\n`,
        );
      }
      if (r.lines.failed > 0) io.stdout.write(`errors: ${join(outcome.outDir, 'errors.jsonl')}\n`);
      io.stdout.write(`report: ${join(outcome.outDir, REPORT_MD)} (${outcome.reportPath})\n`);
      io.stdout.write(`page: ${join(outcome.outDir, RUN_HTML)}\n`);
      const empty = nothingYielded(io, 'run', label, { transcripts: r.transcripts, failed: r.lines.failed, skippedByReason: r.skippedByReason });
      return empty ?? (r.lines.failed > 0 ? EXIT.INPUT_ERRORS : EXIT.OK);
    } finally {
      progress.stop();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  },
});

/** Why a resume of a run over discovered sessions is refused, besides what changed (the error's own message). */
const DISCOVERED_RESUME_NOTE =
  'tcompact run: with no input given, the inputs are the agent sessions found now; an agent wrote or started one since the ' +
  'interrupted run (a session still in use changes with every reply), so the committed shards cannot be trusted\n';

/** `batches: batch_abc in_progress 120/400 (2 failed)`, one part per batch. */
function batchNote(p: BatchProgress): string {
  return `batches: ${p.batches.map((b) => `${b.id} ${b.status} ${b.completed + b.failed}/${b.requests}${b.failed > 0 ? ` (${b.failed} failed)` : ''}`).join('; ')}`;
}
