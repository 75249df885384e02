import { join } from 'node:path';
import { TcompactError } from '../../errors.js';
import { compactedBy, readCompactedArchive } from '../../retention/compacted-archive.js';
import { Evaluation } from '../../retention/eval-run.js';
import { runEvalJob } from '../../retention/eval-job.js';
import { Judge, type JudgeOptionsInput } from '../../retention/judge.js';
import { readInputs } from '../../formats/read-inputs.js';
import { DEFAULT_MAX_LINE_BYTES } from '../../io/line-reader.js';
import { PRESETS } from '../../strategies/presets.js';
import { STRATEGIES } from '../../strategies/registry.js';
import { getTokenizer } from '../../tokens/tokenizer.js';
import { DEFAULT_WINDOW } from '../../tokens/window.js';
import { type Command, intOption, parseCommandArgs, requireInputs } from '../command.js';
import { loadCompactConfig, tailFlagOverrides } from '../config-file.js';
import { EXIT } from '../exit-codes.js';
import { createLlmSession } from '../../llm/session.js';
import { BATCH_FLAGS_HELP, BATCH_FLAG_SPECS, LLM_FLAG_SPECS, llmOptionsFromFlags, llmStepOptionsFromFlags } from '../llm-flags.js';
import type { InputItem } from '../../formats/types.js';
import { InputTally } from './_eval-options.js';
import { restoreSources } from './restore.js';
import { COMPACTION_FLAG_SPECS, INPUT_FLAG_SPECS, parseFormat, parseTokenizer, sharedFlagsHelp } from '../compaction-flags.js';

/** The row of a compacted archive's transcripts: named after what compacted them, when its journal says. */
function compactedRowName(by: string | undefined): string {
  return by === undefined ? 'compacted' : `compacted: ${by}`;
}

/** Strategies `eval` compares when none is named: those of this list that are registered. */
const DEFAULT_EVAL_STRATEGIES = ['auto', 'mask-observations', 'checkpoint', 'strip-tool-results', 'dedup-tools'];

function defaultEvalStrategies(): string[] {
  return DEFAULT_EVAL_STRATEGIES.filter((name) => STRATEGIES[name] !== undefined || PRESETS[name] !== undefined);
}

function judgeOptions(values: Record<string, string | boolean | string[] | undefined>): JudgeOptionsInput {
  const str = (k: string) => values[k] as string | undefined;
  const options: JudgeOptionsInput = { model: str('judge') as string };
  if (str('llm') !== undefined) options.baseURL = str('llm');
  if (str('judge-window') !== undefined) options.contextWindow = intOption('judge-window', str('judge-window'), 0, 1);
  if (str('llm-concurrency') !== undefined) options.llmConcurrency = intOption('llm-concurrency', str('llm-concurrency'), 4, 1, 256);
  if (str('rpm') !== undefined) options.rpm = intOption('rpm', str('rpm'), 0, 1);
  if (str('tpm') !== undefined) options.tpm = intOption('tpm', str('tpm'), 0, 1);
  return options;
}

/** Where the batches of `--batch` are journaled in DIR: one folder per model and one for the judge. */
function batchDir(out: string, who: string): string {
  return join(out, 'llm-batches', who.replace(/[^\w.-]+/g, '_'));
}

export const evalCommand: Command = {
  name: 'eval',
  summary: 'score what each strategy keeps: deterministic probes (files, commands, errors, requests, open tasks), recall and tokens',
  help: `Usage: tcompact eval <input...> --out DIR [--strategy NAME]... [options]
       tcompact eval --compacted RUN_DIR --out DIR [--strategy NAME]... [options]

Extracts probes from each original transcript (files read/created/modified, shell commands and which failed,
error lines and whether a later step resolved them, every user request and the last one verbatim, open todo
items), compacts it with each strategy, and reports which probes the compacted transcript still holds.
Where a source made its own compaction (Claude Code isCompactSummary), its summary is scored on the span it
replaced, beside every strategy on the same span. Writes eval.json, eval.md, eval.html (a self-contained page with
charts) and lost.jsonl in DIR.

With --compacted, the transcripts are those of a compacted archive (a 'tcompact run' output directory, or a
'tcompact compact' output FILE.jsonl with FILE.refs.jsonl): each one is scored against its original, restored from
the side store, in a row named "compacted: STRATEGIES" (from the run's journal), beside any --strategy run on the
originals (default: none).

Options:
  --out DIR              output directory (required)
  --compacted PATH       audit a compacted archive against its restored originals (see above)
  --strategy NAME        a strategy or preset, or several joined with + (one pipeline); repeat to compare
                         (default: ${DEFAULT_EVAL_STRATEGIES.join(', ')}, those registered)
${sharedFlagsHelp(['keep-last', 'keep-messages', 'keep-results', 'window', 'config'])}
  --no-reference         do not score the sources' own compactions
  --judge MODEL          also ask an OpenAI-compatible model about each context (original and compacted) and grade
                         its answers against the original's probes, by dimension: recall, artifact, continuation,
                         decision (optional; the scores above never need it). Key: OPENAI_API_KEY
  --llm URL              the judge's base URL, e.g. http://127.0.0.1:11434/v1 (default: OPENAI_BASE_URL, else OpenAI)
  --judge-limit N        judge only the first N transcripts (default: all)
  --judge-window N       the judge model's context window in tokens (default: known models' own, else 128000)
  --llm-concurrency N    judge requests in flight (default 4)
  --rpm N, --tpm N       judge requests and tokens per minute (default: no limit of our own)
  --model NAME           the model of the LLM steps (summarize, classify-tangents; auto's summarizer becomes
                         summarize); repeat to compare models: one row per model, with requests, tokens, cost and
                         time. --llm, --llm-concurrency, --rpm and --tpm apply to it too
  --llm-window N         its context window (default: known models' own, else 128000)
  --focus TEXT           summarize's focus
  --price-in X, --price-out X   US dollars per million prompt / completion tokens of --model
${sharedFlagsHelp(['tokenizer', 'from', 'max-line-bytes'])}

${BATCH_FLAGS_HELP}
  With --batch, the questions of --model and --judge go through batches journaled in DIR/llm-batches/: the
  summaries' first, then the judge's about the compacted contexts; what a batch does not answer is asked online.`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs('eval', argv, {
      out: { type: 'string' },
      compacted: { type: 'string' },
      strategy: { type: 'string', multiple: true },
      'keep-last': COMPACTION_FLAG_SPECS['keep-last'],
      'keep-messages': COMPACTION_FLAG_SPECS['keep-messages'],
      'keep-results': COMPACTION_FLAG_SPECS['keep-results'],
      window: COMPACTION_FLAG_SPECS.window,
      config: COMPACTION_FLAG_SPECS.config,
      'no-reference': { type: 'boolean' },
      judge: { type: 'string' },
      llm: { type: 'string' },
      'judge-limit': { type: 'string' },
      'judge-window': { type: 'string' },
      'llm-concurrency': { type: 'string' },
      rpm: { type: 'string' },
      tpm: { type: 'string' },
      model: LLM_FLAG_SPECS.model,
      'llm-window': LLM_FLAG_SPECS['llm-window'],
      focus: LLM_FLAG_SPECS.focus,
      'price-in': LLM_FLAG_SPECS['price-in'],
      'price-out': LLM_FLAG_SPECS['price-out'],
      tokenizer: COMPACTION_FLAG_SPECS.tokenizer,
      ...INPUT_FLAG_SPECS,
      ...BATCH_FLAG_SPECS,
    });
    const compacted = values.compacted === undefined ? undefined : await restoreSources(values.compacted);
    if (compacted && positionals.length > 0) throw new TcompactError('E_USAGE', 'eval: give either inputs or --compacted PATH, not both');
    const inputs = compacted ? [values.compacted as string] : requireInputs('eval', positionals);
    if (values.out === undefined) throw new TcompactError('E_USAGE', 'eval: --out DIR is required');
    const strategies = values.strategy ?? (compacted ? [] : defaultEvalStrategies());
    const given = compacted ? compactedRowName(await compactedBy(values.compacted as string)) : undefined;
    const tokenizer = getTokenizer(parseTokenizer(values.tokenizer));
    // The judge's flags (--llm, --llm-concurrency, --rpm, --tpm) are valid without --model; the model's need it.
    if (values.batch && values.model === undefined && values.judge === undefined)
      throw new TcompactError('E_USAGE', 'eval: --batch needs --model NAME or --judge MODEL (nothing else asks a model)');
    const models = (values.model === undefined ? [] : llmOptionsFromFlags('eval', values, { multiple: true })).map((m) =>
      m.batch ? { ...m, batch: { ...m.batch, dir: batchDir(values.out as string, `model-${m.model}`) } } : m,
    );
    for (const flag of ['llm-window', 'focus', 'price-in', 'price-out'] as const) {
      if (models.length === 0 && values[flag] !== undefined) throw new TcompactError('E_USAGE', `eval: --${flag} needs --model NAME`);
    }
    const { config } = await loadCompactConfig(values.config, {
      ...tailFlagOverrides(values),
      window: values.window === undefined ? undefined : intOption('window', values.window, DEFAULT_WINDOW, 1),
      tokenizer: tokenizer.name,
      options: llmStepOptionsFromFlags(values),
    });
    const { strategies: _ignored, tokenizer: _tok, ...shared } = config;
    const judgeInput = (): JudgeOptionsInput | undefined => {
      if (values.judge === undefined) return undefined;
      const options = judgeOptions(values);
      if (!values.batch) return options;
      const pollSeconds = values['batch-poll-seconds'] === undefined ? undefined : Number(values['batch-poll-seconds']);
      return { ...options, batch: { dir: batchDir(values.out as string, 'judge'), ...(pollSeconds === undefined ? {} : { pollSeconds }) } };
    };
    const judge = judgeInput() === undefined ? undefined : await Judge.create(judgeInput() as JudgeOptionsInput);
    const judgeLimit = values['judge-limit'] === undefined ? undefined : intOption('judge-limit', values['judge-limit'], 0, 1);
    const llm = await Promise.all(models.map((m) => createLlmSession(m)));
    const evaluationOf = (withJudge: Judge | undefined) =>
      new Evaluation({ strategies, tokenizer, config: shared, reference: !values['no-reference'], judge: withJudge, judgeLimit, llm, given });
    const maxLineBytes = intOption('max-line-bytes', values['max-line-bytes'], DEFAULT_MAX_LINE_BYTES, 1);
    const readItems = (): AsyncIterable<InputItem> =>
      compacted ? readCompactedArchive(compacted, { maxLineBytes }) : readInputs(inputs, { maxLineBytes, from: parseFormat(values.from) });
    // The gathering pass's judge asks through the same session (its batches), and its tallies are dropped.
    const gatherJudge = values.batch && judge?.session.batcher ? new Judge(judge.session) : undefined;
    const tally = new InputTally(io);
    const markdown = await runEvalJob({
      inputs,
      settings: {
        ...(compacted ? { compacted: given } : {}),
        strategies,
        keepLast: config.keepLast,
        keepFirst: config.keepFirst,
        window: config.window,
        tokenizer: tokenizer.name,
      },
      out: values.out,
      readItems,
      evaluationOf,
      ...(judge ? { judge } : {}),
      ...(gatherJudge ? { gatherJudge } : {}),
      llm,
      batch: values.batch === true,
      accept: (item) => tally.accept(item),
      tally: () => ({ errors: tally.errors, skipped: tally.skipped }),
      note: (line) => io.stderr.write(`${line}\n`),
    });
    io.stdout.write(markdown);
    io.stdout.write(
      `\nWrote ${join(values.out, 'eval.json')}, eval.md, eval.html and lost.jsonl (${tally.transcripts} transcripts, ${tally.errors} errors, ${tally.skipped} skipped)\n`,
    );
    return tally.nothingYielded('eval', inputs) ?? (tally.errors > 0 ? EXIT.INPUT_ERRORS : EXIT.OK);
  },
};
