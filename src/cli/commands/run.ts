import { join } from 'node:path';
import { TcompactError } from '../../errors.js';
import { DEFAULT_MAX_LINE_BYTES } from '../../io/line-reader.js';
import { REPORT_MD } from '../../pipeline/store/ordered-writer.js';
import { DEFAULT_SHARD_BYTES, DEFAULT_WORKER_HEAP_MB, defaultWorkers } from '../../pipeline/job/capacity.js';
import { runPipeline } from '../../pipeline/run-pipeline.js';
import { parseQueueUrl } from '../../pipeline/executors/queue/queue-url.js';
import { DEFAULT_QUEUE_GRACE_MS } from '../../pipeline/executors/queue/queue-timing.js';
import { percent } from '../../report/bars.js';
import { RUN_HTML } from '../../report/html/write-pages.js';
import { createProgress } from '../../report/progress.js';
import { type Command, intOption, parseCommandArgs, requireInputs } from '../command.js';
import { compactFlagOverrides, loadCompactConfig } from '../config-file.js';
import { BATCH_FLAGS_HELP, BATCH_FLAG_SPECS, LLM_FLAGS_HELP, LLM_FLAG_SPECS, llmOptionsFromFlags, llmStepOptionsFromFlags } from '../llm-flags.js';
import type { BatchProgress } from '../../llm/batcher.js';
import type { RunProgress } from '../../pipeline/run-options.js';
import { nothingYielded } from '../nothing-yielded.js';
import { EXIT } from '../exit-codes.js';
import { COMPACTION_FLAG_SPECS, INPUT_FLAG_SPECS, parseFormat, sharedFlagsHelp } from '../compaction-flags.js';

export const runCommand: Command = {
  name: 'run',
  summary: 'compact whole archives on a worker pool: ordered, resumable output with errors and a report',
  help: `Usage: tcompact run <input...> --out DIR [options]

Compacts every transcript of the inputs (canonical JSONL archives, or any format the adapters read) on a pool of
worker threads and writes, in DIR: transcripts.jsonl (in input order), errors.jsonl (one line per input line that
failed: file, line, byteOffset, code, message), refs.jsonl (the side store for 'tcompact restore'), report.json,
report.md and report.html (a self-contained page with charts). Output is byte-identical whatever the number of workers. Each shard of work commits atomically and is
journaled (DIR/journal.jsonl), so an interrupted run continues with --resume.

Options:
  --out DIR              output directory (required)
${sharedFlagsHelp(['strategy', 'config'])}
  --workers N            worker threads (default: the number of cores, here ${defaultWorkers()})
  --resume               reuse the shards an interrupted run of the same inputs and settings committed
${sharedFlagsHelp(['tokenizer', 'tokenizer-engine', 'window', 'keep-last', 'keep-messages', 'keep-results', 'no-refs', 'from', 'max-line-bytes'])}
  --worker-heap-mb N     heap limit of each worker; a worker over it fails alone (default ${DEFAULT_WORKER_HEAP_MB})
  --shard-bytes N        target size of a unit of work (default ${DEFAULT_SHARD_BYTES}); a resume needs the same value
  --queue URL            distributed run: shards go to BullMQ jobs on Redis (redis://[user:pass@]HOST:PORT[/DB], or
                         rediss:// for TLS) where 'tcompact worker' processes take them; --workers N local threads
                         take jobs too, --workers 0 only coordinates (see docs/scaling-out.md)
  --queue-grace-ms N     how long Redis may be unreachable before the run stops with E_QUEUE; --resume continues it
                         (default ${DEFAULT_QUEUE_GRACE_MS})
  --quiet                no progress output

${LLM_FLAGS_HELP}
  (workers never call the network: the LLM steps run on the main thread)

${BATCH_FLAGS_HELP}
  Ctrl-C while waiting leaves the batches running; --resume picks them up and never sends a request twice.

Ctrl-C stops reading, lets the shards in flight finish and commit, and exits with 130; a second Ctrl-C drops
them. Exit codes: 0 nothing failed, 1 some input failed (see errors.jsonl), 2 usage or config error, 3 resume
refused (input or config changed), 74 a file could not be read or written (E_IO, e.g. disk full: --resume continues
once there is room), 130 interrupted.`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs('run', argv, {
      out: { type: 'string' },
      ...COMPACTION_FLAG_SPECS,
      ...INPUT_FLAG_SPECS,
      workers: { type: 'string' },
      resume: { type: 'boolean' },
      'worker-heap-mb': { type: 'string' },
      'shard-bytes': { type: 'string' },
      quiet: { type: 'boolean' },
      queue: { type: 'string' },
      'queue-grace-ms': { type: 'string' },
      ...LLM_FLAG_SPECS,
      ...BATCH_FLAG_SPECS,
    });
    const inputs = requireInputs('run', positionals);
    if (values.out === undefined) throw new TcompactError('E_USAGE', "run: --out DIR is required (see 'tcompact run --help')");
    const [llm] = llmOptionsFromFlags('run', values);
    const { config, steps } = await loadCompactConfig(
      values.config,
      { ...compactFlagOverrides(values), options: llmStepOptionsFromFlags(values) },
      { model: llm !== undefined },
    );
    const queue = values.queue === undefined ? undefined : parseQueueUrl(values.queue);
    const workers = intOption('workers', values.workers, defaultWorkers(), queue ? 0 : 1, 256);
    const maxLineBytes = intOption('max-line-bytes', values['max-line-bytes'], DEFAULT_MAX_LINE_BYTES, 1);
    const workerHeapMb = intOption('worker-heap-mb', values['worker-heap-mb'], DEFAULT_WORKER_HEAP_MB, 16);
    const shardBytes = intOption('shard-bytes', values['shard-bytes'], DEFAULT_SHARD_BYTES, 1024);
    const from = parseFormat(values.from);

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
    const progress = createProgress(io.stderr, { quiet: values.quiet === true });
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
          outDir: values.out,
          config,
          workers,
          resume: values.resume === true,
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
          ...(values['queue-grace-ms'] === undefined
            ? {}
            : { queueGraceMs: intOption('queue-grace-ms', values['queue-grace-ms'], DEFAULT_QUEUE_GRACE_MS, 100) }),
        },
        { steps },
      );
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
      const empty = nothingYielded(io, 'run', inputs, { transcripts: r.transcripts, failed: r.lines.failed, skippedByReason: r.skippedByReason });
      return empty ?? (r.lines.failed > 0 ? EXIT.INPUT_ERRORS : EXIT.OK);
    } finally {
      progress.stop();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  },
};

/** `batches: batch_abc in_progress 120/400 (2 failed)`, one part per batch. */
function batchNote(p: BatchProgress): string {
  return `batches: ${p.batches.map((b) => `${b.id} ${b.status} ${b.completed + b.failed}/${b.requests}${b.failed > 0 ? ` (${b.failed} failed)` : ''}`).join('; ')}`;
}
