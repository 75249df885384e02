import { join } from 'node:path';
import { TcompactError } from '../../errors.js';
import { compactedBy, readCompactedArchive } from '../../retention/compacted-archive.js';
import { Evaluation } from '../../retention/eval-run.js';
import { runEvalJob } from '../../retention/eval-job.js';
import { Judge, type JudgeOptionsInput } from '../../retention/judge.js';
import { readInputs } from '../../formats/read-inputs.js';
import { PRESETS } from '../../strategies/presets.js';
import { STRATEGIES } from '../../strategies/registry.js';
import { getTokenizer } from '../../tokens/tokenizer.js';
import { defineCommand } from '../command.js';
import { SOURCE_FLAGS, inputsOrDiscovered, refuseSourceFlags } from '../source-flags.js';
import { integer, text } from '../flag-values.js';
import { type FlagValues, booleanFlag, valueFlag } from '../flags.js';
import { INPUT_FLAGS } from '../input-flags.js';
import { loadCompactConfig, tailFlagOverrides } from '../config-file.js';
import { EXIT } from '../exit-codes.js';
import { createLlmSession } from '../../llm/session.js';
import { BATCH_FLAGS, LLM_FLAGS, llmOptionsFromFlags, llmStepOptionsFromFlags } from '../llm-flags.js';
import type { InputItem } from '../../formats/types.js';
import { InputTally } from './_input-tally.js';
import { restoreSources } from './restore.js';
import { COMPACTION_FLAGS, TAIL_FLAGS } from '../compaction-flags.js';
import { SECRET_FLAGS, maskedLine, maskerFromFlags } from '../secret-flags.js';

/** The row of a compacted archive's transcripts: named after what compacted them, when its journal says. */
function compactedRowName(by: string | undefined): string {
  return by === undefined ? 'compacted' : `compacted: ${by}`;
}

/** Strategies `eval` compares when none is named: those of this list that are registered. */
const DEFAULT_EVAL_STRATEGIES = ['auto', 'mask-observations', 'checkpoint', 'strip-tool-results', 'dedup-tools'];

function defaultEvalStrategies(): string[] {
  return DEFAULT_EVAL_STRATEGIES.filter((name) => STRATEGIES[name] !== undefined || PRESETS[name] !== undefined);
}

const FLAGS = {
  out: valueFlag({ valueName: 'DIR', description: 'output directory', parse: text, required: true }),
  compacted: valueFlag({ valueName: 'PATH', description: 'audit a compacted archive against its restored originals (see above)', parse: text }),
  strategy: {
    ...COMPACTION_FLAGS.strategy,
    description: 'a strategy or preset, or several joined with + (one pipeline); repeat to compare',
    shownDefault: `${DEFAULT_EVAL_STRATEGIES.join(', ')}, those registered`,
  },
  ...TAIL_FLAGS,
  window: COMPACTION_FLAGS.window,
  config: COMPACTION_FLAGS.config,
  'no-reference': booleanFlag({ description: "do not score the sources' own compactions" }),
  judge: valueFlag({
    valueName: 'MODEL',
    description:
      "also ask an OpenAI-compatible model about each context (original and compacted) and grade its answers against the original's probes, by dimension: recall, artifact, continuation, decision (optional; the scores above never need it). Key: OPENAI_API_KEY",
    parse: text,
  }),
  llm: { ...LLM_FLAGS.llm, section: undefined, description: "the judge's base URL, e.g. http://127.0.0.1:11434/v1" },
  'judge-limit': valueFlag({ valueName: 'N', description: 'judge only the first N transcripts', parse: integer(1), shownDefault: 'all' }),
  'judge-window': { ...LLM_FLAGS['llm-window'], section: undefined, description: "the judge model's context window in tokens" },
  'llm-concurrency': { ...LLM_FLAGS['llm-concurrency'], section: undefined, description: 'judge requests in flight' },
  rpm: { ...LLM_FLAGS.rpm, section: undefined, description: 'judge requests per minute' },
  tpm: { ...LLM_FLAGS.tpm, section: undefined, description: 'judge tokens per minute' },
  model: {
    ...LLM_FLAGS.model,
    section: undefined,
    description:
      "the model of the LLM steps (summarize, classify-tangents; auto's summarizer becomes summarize); repeat to compare models: one row per model, with requests, tokens, cost and time. --llm, --llm-concurrency, --rpm and --tpm apply to it too",
  },
  'llm-window': { ...LLM_FLAGS['llm-window'], section: undefined, description: 'its context window' },
  focus: { ...LLM_FLAGS.focus, section: undefined, description: "summarize's focus" },
  'price-in': { ...LLM_FLAGS['price-in'], section: undefined, description: 'US dollars per million prompt tokens of --model' },
  'price-out': { ...LLM_FLAGS['price-out'], section: undefined, description: 'US dollars per million completion tokens of --model' },
  ...INPUT_FLAGS,
  ...SOURCE_FLAGS,
  ...SECRET_FLAGS,
  ...BATCH_FLAGS,
};

function judgeOptions(values: FlagValues<typeof FLAGS> & { judge: string }): JudgeOptionsInput {
  const options: JudgeOptionsInput = { model: values.judge };
  if (values.llm !== undefined) options.baseURL = values.llm;
  if (values['judge-window'] !== undefined) options.contextWindow = values['judge-window'];
  if (values['llm-concurrency'] !== undefined) options.llmConcurrency = values['llm-concurrency'];
  if (values.rpm !== undefined) options.rpm = values.rpm;
  if (values.tpm !== undefined) options.tpm = values.tpm;
  return options;
}

/** Where the batches of `--batch` are journaled in DIR: one folder per model and one for the judge. */
function batchDir(out: string, who: string): string {
  return join(out, 'llm-batches', who.replace(/[^\w.-]+/g, '_'));
}

export const evalCommand = defineCommand({
  name: 'eval',
  summary: 'score what each strategy keeps: deterministic probes (files, commands, errors, requests, open tasks), recall and tokens',
  usage: `Usage: tcompact eval [input...] --out DIR [--strategy NAME]... [options]
       tcompact eval --compacted RUN_DIR --out DIR [--strategy NAME]... [options]`,
  description: `Extracts probes from each original transcript (files read/created/modified, shell commands and which failed,
error lines and whether a later step resolved them, every user request and the last one verbatim, open todo
items), compacts it with each strategy, and reports which probes the compacted transcript still holds.
Where a source made its own compaction with a summary (Claude Code's compact summaries, Codex's compacted, Gemini
CLI's compression, pi's and OpenCode's summaries), that summary is scored on the span it replaced, beside checkpoint
held to the summary's tokens and every strategy on the same span. Writes eval.json, eval.md, eval.html (a self-contained page with
charts) and lost.jsonl in DIR.
With no input (and no --compacted), reads the current user's agent sessions ('tcompact sources' lists them),
which the --agent, --since, --until and --project flags select, and says on stderr which folders it read.

With --compacted, the transcripts are those of a compacted archive (a 'tcompact run' output directory, or a
'tcompact compact' output FILE.jsonl with FILE.refs.jsonl): each one is scored against its original, restored from
the side store, in a row named "compacted: STRATEGIES" (from the run's journal), beside any --strategy run on the
originals (default: none).`,
  flags: FLAGS,
  positionals: (positionals, given) => {
    if (given('compacted') && positionals.length > 0) throw new TcompactError('E_USAGE', 'eval: give either inputs or --compacted PATH, not both');
  },
  notes: {
    batch: `With --batch, the questions of --model and --judge go through batches journaled in DIR/llm-batches/: the
summaries' first, then the judge's about the compacted contexts; what a batch does not answer is asked online.`,
  },
  async run({ values, positionals }, io) {
    const { out, compacted: compactedPath } = values;
    if (compactedPath !== undefined) refuseSourceFlags('eval', values, '--compacted');
    const compacted = compactedPath === undefined ? undefined : await restoreSources(compactedPath);
    const strategies = values.strategy ?? (compacted ? [] : defaultEvalStrategies());
    const given = compactedPath === undefined ? undefined : compactedRowName(await compactedBy(compactedPath));
    const tokenizer = getTokenizer(values.tokenizer);
    // The judge's flags (--llm, --llm-concurrency, --rpm, --tpm) are valid without --model; the model's need it.
    if (values.batch && values.model === undefined && values.judge === undefined)
      throw new TcompactError('E_USAGE', 'eval: --batch needs --model NAME or --judge MODEL (nothing else asks a model)');
    const models = (values.model === undefined ? [] : llmOptionsFromFlags('eval', values, { multiple: true })).map((m) =>
      m.batch ? { ...m, batch: { ...m.batch, dir: batchDir(out, `model-${m.model}`) } } : m,
    );
    for (const flag of ['llm-window', 'focus', 'price-in', 'price-out'] as const) {
      if (models.length === 0 && values[flag] !== undefined) throw new TcompactError('E_USAGE', `eval: --${flag} needs --model NAME`);
    }
    const { config } = await loadCompactConfig(values.config, {
      ...tailFlagOverrides(values),
      window: values.window,
      tokenizer: tokenizer.name,
      options: llmStepOptionsFromFlags(values),
    });
    const { strategies: _ignored, tokenizer: _tok, ...shared } = config;
    const { inputs, label, sessions } =
      compactedPath === undefined
        ? await inputsOrDiscovered('eval', positionals, values, io, out)
        : { inputs: [compactedPath], label: [compactedPath], sessions: {} };
    const judgeInput = (judgeModel: string): JudgeOptionsInput => {
      const options = judgeOptions({ ...values, judge: judgeModel });
      if (!values.batch) return options;
      const pollSeconds = values['batch-poll-seconds'];
      return { ...options, batch: { dir: batchDir(out, 'judge'), ...(pollSeconds === undefined ? {} : { pollSeconds }) } };
    };
    const judge = values.judge === undefined ? undefined : await Judge.create(judgeInput(values.judge));
    const judgeLimit = values['judge-limit'];
    const llm = await Promise.all(models.map((m) => createLlmSession(m)));
    const evaluationOf = (withJudge: Judge | undefined) =>
      new Evaluation({ strategies, tokenizer, config: shared, reference: !values['no-reference'], judge: withJudge, judgeLimit, llm, given });
    const maxLineBytes = values['max-line-bytes'];
    const readItems = (): AsyncIterable<InputItem> =>
      compacted ? readCompactedArchive(compacted, { maxLineBytes }) : readInputs(inputs, { maxLineBytes, from: values.from, sessions });
    // The gathering pass's judge asks through the same session (its batches), and its tallies are dropped.
    const gatherJudge = values.batch && judge?.session.batcher ? new Judge(judge.session) : undefined;
    const tally = new InputTally(io);
    const masker = maskerFromFlags(values);
    const markdown = await runEvalJob({
      inputs: label,
      settings: {
        ...(compacted ? { compacted: given } : {}),
        strategies,
        keepLast: config.keepLast,
        keepFirst: config.keepFirst,
        window: config.window,
        tokenizer: tokenizer.name,
      },
      out,
      readItems,
      evaluationOf,
      ...(judge ? { judge } : {}),
      ...(gatherJudge ? { gatherJudge } : {}),
      llm,
      batch: values.batch,
      accept: (item) => tally.accept(item),
      tally: () => ({ errors: tally.errors, skipped: tally.skipped }),
      note: (line) => io.stderr.write(`${line}\n`),
      masker,
    });
    io.stderr.write(maskedLine(masker));
    io.stdout.write(markdown);
    io.stdout.write(
      `\nWrote ${join(out, 'eval.json')}, eval.md, eval.html and lost.jsonl (${tally.transcripts} transcripts, ${tally.errors} errors, ${tally.skipped} skipped)\n`,
    );
    return tally.nothingYielded('eval', label) ?? (tally.errors > 0 ? EXIT.INPUT_ERRORS : EXIT.OK);
  },
});
