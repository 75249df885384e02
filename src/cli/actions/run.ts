import { join } from 'node:path';
import { REPORT_MD } from '../../pipeline/store/ordered-writer.js';
import { runPipeline } from '../../pipeline/run-pipeline.js';
import { percent } from '../../report/bars.js';
import { RUN_HTML } from '../../report/html/write-pages.js';
import { createProgress } from '../../report/progress.js';
import { inputsOrDiscovered } from '../discovered-inputs.js';
import { TcompactError } from '../../errors.js';
import { compactFlagOverrides, loadCompactConfig } from '../config-file.js';
import { llmOptionsFromFlags, llmStepOptionsFromFlags } from '../llm-flags.js';
import type { BatchProgress } from '../../llm/batcher.js';
import type { RunProgress } from '../../pipeline/run-options.js';
import { nothingYielded } from '../nothing-yielded.js';
import { EXIT } from '../exit-codes.js';
import type { CliIO } from '../command.js';
import type { ParsedFlags } from '../flags.js';
import type { FLAGS } from '../commands/run.js';

/** What 'tcompact run' does with its parsed flags; loaded only when the command runs. */
export async function runAction({ values, positionals }: ParsedFlags<typeof FLAGS>, io: CliIO): Promise<number> {
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
}

/** Why a resume of a run over discovered sessions is refused, besides what changed (the error's own message). */
const DISCOVERED_RESUME_NOTE =
  'tcompact run: with no input given, the inputs are the agent sessions found now; an agent wrote or started one since the ' +
  'interrupted run (a session still in use changes with every reply), so the committed shards cannot be trusted\n';

/** `batches: batch_abc in_progress 120/400 (2 failed)`, one part per batch. */
function batchNote(p: BatchProgress): string {
  return `batches: ${p.batches.map((b) => `${b.id} ${b.status} ${b.completed + b.failed}/${b.requests}${b.failed > 0 ? ` (${b.failed} failed)` : ''}`).join('; ')}`;
}
