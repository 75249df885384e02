import { join } from 'node:path';
import { TcompactError } from '../../errors.js';
import { compactedBy, readCompactedArchive } from '../../retention/compacted-archive.js';
import { Evaluation } from '../../retention/eval-run.js';
import { runEvalJob } from '../../retention/eval-job.js';
import { Judge, type JudgeOptionsInput } from '../../retention/judge.js';
import { readInputs } from '../../formats/read-inputs.js';
import { getTokenizer } from '../../tokens/tokenizer.js';
import { refuseSourceFlags } from '../source-flags.js';
import { inputsOrDiscovered } from '../discovered-inputs.js';
import { type FlagValues } from '../flags.js';
import { loadCompactConfig, tailFlagOverrides } from '../config-file.js';
import { EXIT } from '../exit-codes.js';
import { createLlmSession } from '../../llm/session.js';
import { llmOptionsFromFlags, llmStepOptionsFromFlags } from '../llm-flags.js';
import type { InputItem } from '../../formats/types.js';
import { InputTally } from '../commands/_input-tally.js';
import { restoreSources } from './restore.js';
import { maskedLine, maskerFromFlags } from '../secret-masking.js';
import type { CliIO } from '../command.js';
import type { ParsedFlags } from '../flags.js';
import { DEFAULT_EVAL_STRATEGIES, type FLAGS } from '../commands/eval.js';
import { PRESETS } from '../../strategies/presets.js';
import { STRATEGIES } from '../../strategies/registry.js';

/** The row of a compacted archive's transcripts: named after what compacted them, when its journal says. */
function compactedRowName(by: string | undefined): string {
  return by === undefined ? 'compacted' : `compacted: ${by}`;
}

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

function defaultEvalStrategies(): string[] {
  return DEFAULT_EVAL_STRATEGIES.filter((name) => STRATEGIES[name] !== undefined || PRESETS[name] !== undefined);
}

/** What 'tcompact eval' does with its parsed flags; loaded only when the command runs. */
export async function evalAction({ values, positionals }: ParsedFlags<typeof FLAGS>, io: CliIO): Promise<number> {
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
}
