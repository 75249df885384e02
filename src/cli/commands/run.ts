import { join } from 'node:path';
import { TcompactError } from '../../errors.js';
import type { LlmOptionsInput } from '../../llm/config.js';
import { DEFAULT_MAX_LINE_BYTES } from '../../io/line-reader.js';
import { REPORT_MD } from '../../pipeline/store/ordered-writer.js';
import { DEFAULT_SHARD_BYTES, DEFAULT_WORKER_HEAP_MB, defaultWorkers } from '../../pipeline/coordinator/run-options.js';
import { runPipeline } from '../../pipeline/coordinator/run-pipeline.js';
import { percent } from '../../report/bars.js';
import { createProgress } from '../../report/progress.js';
import { DEFAULT_WINDOW } from '../../tokens/window.js';
import { type Command, intOption, parseCommandArgs, requireInputs } from '../command.js';
import { compactFlagOverrides, loadCompactConfig } from '../config-file.js';
import { EXIT } from '../exit-codes.js';
import { parseFormat, parseTokenizer } from './stats.js';

const LLM_FLAGS = ['llm', 'llm-window', 'llm-concurrency', 'rpm', 'tpm', 'focus', 'price-in', 'price-out', 'remove-tangents'] as const;

/** The LLM stage's options from the flags; undefined without --model (and then no other LLM flag is allowed). */
function llmOptions(values: Record<string, string | boolean | string[] | undefined>): LlmOptionsInput | undefined {
  const str = (k: string) => values[k] as string | undefined;
  const model = str('model');
  if (model === undefined) {
    const stray = LLM_FLAGS.find((f) => values[f] !== undefined);
    if (stray) throw new TcompactError('E_USAGE', `run: --${stray} needs --model NAME (the LLM stage is off without a model)`);
    return undefined;
  }
  const options: LlmOptionsInput = { model };
  if (str('llm') !== undefined) options.baseURL = str('llm');
  if (str('llm-window') !== undefined) options.contextWindow = intOption('llm-window', str('llm-window'), 0, 1);
  if (str('llm-concurrency') !== undefined) options.llmConcurrency = intOption('llm-concurrency', str('llm-concurrency'), 4, 1, 256);
  if (str('rpm') !== undefined) options.rpm = intOption('rpm', str('rpm'), 0, 1);
  if (str('tpm') !== undefined) options.tpm = intOption('tpm', str('tpm'), 0, 1);
  if (str('price-in') !== undefined) options.priceIn = price('price-in', str('price-in') as string);
  if (str('price-out') !== undefined) options.priceOut = price('price-out', str('price-out') as string);
  return options;
}

/** What the LLM flags set in the steps' own options: `--focus` for summarize, `--remove-tangents` for auto. */
function llmStepOptions(values: Record<string, string | boolean | string[] | undefined>): Record<string, Record<string, unknown>> | undefined {
  const options: Record<string, Record<string, unknown>> = {};
  if (values.focus !== undefined) options.summarize = { focus: values.focus };
  if (values['remove-tangents']) options.auto = { removeTangents: true };
  return Object.keys(options).length > 0 ? options : undefined;
}

function price(name: string, value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0)
    throw new TcompactError('E_USAGE', `--${name} must be a number of US dollars per million tokens, got "${value}"`);
  return n;
}

export const runCommand: Command = {
  name: 'run',
  summary: 'compact whole archives on a worker pool: ordered, resumable output with errors and a report',
  help: `Usage: tcompact run <input...> --out DIR [options]

Compacts every transcript of the inputs (canonical JSONL archives, or any format the adapters read) on a pool of
worker threads and writes, in DIR: transcripts.jsonl (in input order), errors.jsonl (one line per input line that
failed: file, line, byteOffset, code, message), refs.jsonl (the side store for 'tcompact restore'), report.json and
report.md. Output is byte-identical whatever the number of workers. Each shard of work commits atomically and is
journaled (DIR/journal.jsonl), so an interrupted run continues with --resume.

Options:
  --out DIR              output directory (required)
  --strategy NAME        strategy or preset, repeatable, applied left to right (default: auto)
  --config FILE          JSON config (strategies, keepLast, window, tokenizer, refs, toolHints, options); flags win
  --workers N            worker threads (default: the number of cores, here ${defaultWorkers()})
  --resume               reuse the shards an interrupted run of the same inputs and settings committed
  --tokenizer NAME       o200k_base (default), cl100k_base, or heuristic (chars/4)
  --window N             context window in tokens, for thresholds (default ${DEFAULT_WINDOW})
  --keep-last N          last turns never modified (default 1)
  --no-refs              do not keep replaced content (no refs.jsonl; restore is impossible)
  --from FORMAT          force the input format instead of detecting it
  --max-line-bytes N     reject longer lines with E_LINE_TOO_LONG before parsing (default ${DEFAULT_MAX_LINE_BYTES})
  --worker-heap-mb N     heap limit of each worker; a worker over it fails alone (default ${DEFAULT_WORKER_HEAP_MB})
  --shard-bytes N        target size of a unit of work (default ${DEFAULT_SHARD_BYTES}); a resume needs the same value
  --quiet                no progress output

LLM summarization (off unless --model is given; workers never call the network):
  --model NAME           model for auto's summarizer step, used instead of checkpoint above its threshold
  --llm URL              OpenAI-compatible base URL, e.g. http://127.0.0.1:11434/v1 (default: OPENAI_BASE_URL,
                         else OpenAI); key: OPENAI_API_KEY
  --llm-window N         the model's context window in tokens (default: known models' own, else 128000)
  --llm-concurrency N    requests in flight (default 4)
  --rpm N, --tpm N       requests and tokens per minute (default: no limit of our own)
  --focus TEXT           added to the summary prompt
  --price-in X, --price-out X   US dollars per million prompt / completion tokens, for the cost in the report
  --remove-tangents      also ask the model for tangent turns of every transcript and remove them

Ctrl-C stops reading, lets the shards in flight finish and commit, and exits with 130; a second Ctrl-C drops
them. Exit codes: 0 nothing failed, 1 some input failed (see errors.jsonl) or output could not be written,
2 usage or config error, 3 resume refused (input or config changed), 130 interrupted.`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs('run', argv, {
      out: { type: 'string' },
      strategy: { type: 'string', multiple: true },
      config: { type: 'string' },
      workers: { type: 'string' },
      resume: { type: 'boolean' },
      tokenizer: { type: 'string' },
      window: { type: 'string' },
      'keep-last': { type: 'string' },
      'no-refs': { type: 'boolean' },
      from: { type: 'string' },
      'max-line-bytes': { type: 'string' },
      'worker-heap-mb': { type: 'string' },
      'shard-bytes': { type: 'string' },
      quiet: { type: 'boolean' },
      model: { type: 'string' },
      llm: { type: 'string' },
      'llm-window': { type: 'string' },
      'llm-concurrency': { type: 'string' },
      rpm: { type: 'string' },
      tpm: { type: 'string' },
      focus: { type: 'string' },
      'price-in': { type: 'string' },
      'price-out': { type: 'string' },
      'remove-tangents': { type: 'boolean' },
    });
    const inputs = requireInputs('run', positionals);
    if (values.out === undefined) throw new TcompactError('E_USAGE', "run: --out DIR is required (see 'tcompact run --help')");
    const llm = llmOptions(values);
    const { config } = await loadCompactConfig(values.config, { ...compactFlagOverrides(values), options: llmStepOptions(values) });
    const workers = intOption('workers', values.workers, defaultWorkers(), 1, 256);
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
    try {
      const outcome = await runPipeline({
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
        onProgress: (p) => progress.update(p),
        llm,
      });
      progress.stop();
      if (outcome.status === 'interrupted') {
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
      if (r.lines.failed > 0) io.stdout.write(`errors: ${join(outcome.outDir, 'errors.jsonl')}\n`);
      io.stdout.write(`report: ${join(outcome.outDir, REPORT_MD)} (${outcome.reportPath})\n`);
      return r.lines.failed > 0 ? EXIT.INPUT_ERRORS : EXIT.OK;
    } finally {
      progress.stop();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  },
};
