import { join } from 'node:path';
import { TcompactError, writeError } from '../../errors.js';
import { DEFAULT_POLICIES, POLICIES } from '../../replay/policies/built-in.js';
import { tailFlagOverrides } from '../config-file.js';
import { DEFAULT_PRICES } from '../../replay/billing/prices.js';
import { DEFAULT_CALL_GAP_SECONDS } from '../../provider/cache-rules.js';
import { renderSimulation } from '../../replay/render-simulate.js';
import { Simulation } from '../../replay/simulation.js';
import { readInputs } from '../../formats/read-inputs.js';
import type { InputItem } from '../../formats/types.js';
import type { Transcript } from '../../model/transcript.js';
import { archiveTokenScale } from '../../replay/billing/token-ratio.js';
import { writeFileAtomic } from '../../io/atomic-file.js';
import { makeDir } from '../../io/make-dir.js';
import { writeSimulatePage } from '../../replay/simulate-page.js';
import { type Unreplayable, renderUnreplayable, unreplayableReason } from '../../replay/unreplayable.js';
import { getTokenizer } from '../../tokens/tokenizer.js';
import { defineCommand } from '../command.js';
import { SOURCE_FLAGS, inputsOrDiscovered } from '../source-flags.js';
import { TAIL_FLAGS } from '../compaction-flags.js';
import { integer, nonNegative, text } from '../flag-values.js';
import { booleanFlag, listFlag, valueFlag } from '../flags.js';
import { INPUT_FLAGS } from '../input-flags.js';
import { REPLAY_FLAGS, priceFlags } from '../replay-flags.js';
import { EXIT } from '../exit-codes.js';
import { createLlmSession } from '../../llm/session.js';
import { LLM_FLAGS, llmOptionsFromFlags } from '../llm-flags.js';
import { InputTally } from './_input-tally.js';
import { createStatusLine } from '../../report/progress.js';
import { SECRET_FLAGS, maskedLine, maskerFromFlags } from '../secret-flags.js';

/** The LLM steps' flags, worded for the replay: its model's calls, not the replayed agent's (--price-in/--price-out). */
const LLM_STEP_FLAGS = {
  model: {
    ...LLM_FLAGS.model,
    section: undefined,
    description:
      "the model of the policies' LLM steps (summarize, classify-tangents); their calls are billed in their own column at the model's list price (else --price-in/--price-out)",
  },
  batch: booleanFlag({
    description:
      "bill those calls at the Batch API's price: half the list price, or --price-batch-in X and --price-batch-out X (the replay still asks the model online)",
  }),
  'price-batch-in': valueFlag({
    valueName: 'X',
    description: "with --batch: per million input tokens of the LLM steps' calls",
    parse: nonNegative,
    shownDefault: 'half the list price',
  }),
  'price-batch-out': valueFlag({
    valueName: 'X',
    description: "with --batch: per million output tokens of the LLM steps' calls",
    parse: nonNegative,
    shownDefault: 'half the list price',
  }),
  llm: { ...LLM_FLAGS.llm, section: undefined, description: 'its OpenAI-compatible base URL; key: OPENAI_API_KEY' },
  'llm-window': { ...LLM_FLAGS['llm-window'], section: undefined, description: 'its context window' },
  'llm-concurrency': { ...LLM_FLAGS['llm-concurrency'], section: undefined, description: 'its requests in flight' },
  rpm: { ...LLM_FLAGS.rpm, section: undefined, description: 'its requests per minute' },
  tpm: { ...LLM_FLAGS.tpm, section: undefined, description: 'its tokens per minute' },
  focus: { ...LLM_FLAGS.focus, section: undefined, description: "summarize's focus" },
};

const FLAGS = {
  out: valueFlag({ valueName: 'DIR', description: 'output directory', parse: text, required: true }),
  policy: listFlag({
    valueName: 'NAME',
    description: "a policy above; repeat to compare ('none' is always replayed as the baseline)",
    parse: text,
    default: DEFAULT_POLICIES,
    shownDefault: 'all built-in ones',
  }),
  window: REPLAY_FLAGS.window,
  ...TAIL_FLAGS,
  'base-prompt': REPLAY_FLAGS['base-prompt'],
  'token-ratio': REPLAY_FLAGS['token-ratio'],
  cooldown: valueFlag({ valueName: 'N', description: 'calls after a compaction with no new attempt', parse: integer(0), default: 0 }),
  'max-attempts': valueFlag({
    valueName: 'N',
    description: 'compactions in a row that stay above the trigger before the run is stuck',
    parse: integer(1),
    default: 3,
  }),
  cache: REPLAY_FLAGS.cache,
  'call-gap': valueFlag({
    valueName: 'SECONDS',
    description: 'seconds between calls of a transcript without timestamps',
    parse: nonNegative,
    default: DEFAULT_CALL_GAP_SECONDS,
  }),
  prices: REPLAY_FLAGS.prices,
  'price-in': REPLAY_FLAGS['price-in'],
  'price-cache-write': valueFlag({
    valueName: 'X',
    description: 'per million input tokens written to the cache, for every call',
    parse: nonNegative,
    shownDefault: `each model's list price for the cache's TTL, else the cache model's multiple of the input price: 1.25 anthropic-5m and ideal, 2 anthropic-1h, 1 openai; ${DEFAULT_PRICES.cacheWrite} for an unlisted model`,
  }),
  'price-cached': valueFlag({
    valueName: 'X',
    description: 'per million input tokens read from the cache, for every call',
    parse: nonNegative,
    shownDefault: `each model's list price, else 0.1 x the input price; ${DEFAULT_PRICES.cached} for an unlisted model`,
  }),
  'price-out': REPLAY_FLAGS['price-out'],
  ...LLM_STEP_FLAGS,
  ...INPUT_FLAGS,
  ...SOURCE_FLAGS,
  ...SECRET_FLAGS,
};

export const simulateCommand = defineCommand({
  name: 'simulate',
  summary: 'replay transcripts as agent loops under compaction policies: tokens billed, compactions, cost',
  usage: 'Usage: tcompact simulate [input...] --out DIR [--policy NAME]... [options]',
  description: `Replays each transcript as the agent loop that produced it: every assistant message is one model call whose
prompt is every earlier message as the policy leaves it. Writes simulate.json, simulate.md and simulate.html (a self-contained page with charts) in DIR.
With recorded usage, each session's 'source' replay is held against its record: input, cache writes and input-side
cost, and the first call more than 10% off with what was there (the section "The replay against the record").
With no input, reads the current user's agent sessions ('tcompact sources' lists them), which the
--agent, --since, --until and --project flags select, and says on stderr which folders it read.

Policies (--policy may repeat; default: all built-in ones; 'none' is always replayed as the baseline, and 'optimal',
the hindsight-optimal schedule, as the floor each policy's regret is measured against):
${Object.values(POLICIES)
  .map((p) => `  ${p.name.padEnd(28)} ${p.summary}`)
  .join('\n')}
  STRATEGY[+STRATEGY]@TRIGGER  any strategy or preset, at TRIGGER = every (each call), a fraction (0.85) or tokens (150000)
  source                       the source's own compactions replayed: at each of its points (Claude Code compact
                               boundaries, Codex compacted records) the context becomes the summary it recorded
  source:STRATEGY[+STRATEGY]   our strategy at exactly those points, and at /compact commands and an agent's Compact
                               tool (J-CLI), with their focus; 'source' runs beside it, and simulate.md compares the two
                               at the points: billed input, cached cost, and the recall of eval's probes
  anthropic:FILE, langchain:FILE, ai-sdk:FILE, config:FILE
                               a runtime's settings (tune's exports) replayed with that runtime's semantics: Anthropic's
                               context_management, LangChain JS's ClearToolUsesEdit options, pruneMessages options,
                               ContextManager options
  A policy with an LLM step (summarize@0.9, classify-tangents+checkpoint@0.9) needs --model; with it, auto's
  summarizer is summarize.`,
  flags: FLAGS,
  async run({ values, positionals }, io) {
    const { out, cache } = values;
    const prices = priceFlags(values);
    const tokenizer = getTokenizer(values.tokenizer);
    // --price-in and --price-out price the replayed agent's calls here, not the LLM steps' model.
    // --batch prices the LLM steps' calls; the replay cannot wait for batches, so they are asked online.
    const batchFlag = (['batch', 'price-batch-in', 'price-batch-out'] as const).find((f) => values[f] !== undefined && values[f] !== false);
    if (batchFlag && values.model === undefined)
      throw new TcompactError('E_USAGE', `simulate: --${batchFlag} needs --model NAME (only the LLM steps' calls have a batch price)`);
    if (!values.batch && (values['price-batch-in'] !== undefined || values['price-batch-out'] !== undefined))
      throw new TcompactError('E_USAGE', 'simulate: --price-batch-in and --price-batch-out need --batch');
    const batch = values.batch ? { in: values['price-batch-in'], out: values['price-batch-out'] } : undefined;
    // The prices above are the replayed agent's, not the LLM steps' model's.
    const [llmOptions] = llmOptionsFromFlags('simulate', {
      ...values,
      'price-in': undefined,
      'price-out': undefined,
      batch: undefined,
      'price-batch-in': undefined,
      'price-batch-out': undefined,
    });
    const maxLineBytes = values['max-line-bytes'];
    const { inputs, label, sessions } = await inputsOrDiscovered('simulate', positionals, values, io, out);
    // A first pass for the archive's token scale, which stands in for a transcript with too few clean intervals.
    const tokenScaleFallback =
      values['token-ratio'] === 'recorded'
        ? await archiveTokenScale(transcriptsIn(readInputs(inputs, { maxLineBytes, from: values.from, sessions })), tokenizer)
        : undefined;
    const llm = llmOptions === undefined ? undefined : await createLlmSession(llmOptions);
    const simulation = new Simulation({
      policies: values.policy,
      window: values.window,
      tokenizer,
      prices,
      ...(values.prices ? { modelPrices: values.prices } : {}),
      cache,
      callGapSeconds: values['call-gap'],
      cooldown: values.cooldown,
      maxAttempts: values['max-attempts'],
      basePrompt: values['base-prompt'],
      tokenRatio: values['token-ratio'],
      ...(tokenScaleFallback ? { tokenScaleFallback } : {}),
      llm,
      ...(batch ? { batch } : {}),
      focus: values.focus,
      tail: tailFlagOverrides(values),
    });
    const tally = new InputTally(io);
    const unreplayable: Unreplayable[] = [];
    const status = createStatusLine(io.stderr);
    try {
      for await (const item of readInputs(inputs, { maxLineBytes, from: values.from, sessions })) {
        if (!tally.accept(item)) continue;
        const reason = unreplayableReason(item.transcript);
        if (reason !== undefined) {
          io.stderr.write(`simulate: ${item.transcript.id} (${item.file}) has no messages to replay: ${reason}\n`);
          unreplayable.push({ id: item.transcript.id, file: item.file, reason });
          continue;
        }
        await simulation.add(item.transcript, item);
        status.set(`simulate: ${tally.transcripts} transcripts replayed`);
      }
    } finally {
      status.stop();
      await llm?.close();
    }
    const masker = maskerFromFlags(values);
    const report = masker.value(simulation.report());
    const markdown = renderSimulation(report) + renderUnreplayable(unreplayable);
    try {
      await makeDir(out);
      await writeFileAtomic(join(out, 'simulate.json'), [
        `${JSON.stringify({ tool: 'tcompact simulate', inputs: label, ...report, ...(unreplayable.length > 0 ? { unreplayable } : {}), errors: tally.errors, skipped: tally.skipped, secretsMasked: masker.counts }, null, 2)}\n`,
      ]);
      await writeFileAtomic(join(out, 'simulate.md'), [markdown]);
    } catch (err) {
      throw writeError(err, out);
    }
    await writeSimulatePage(out, { inputs: label, ...report });
    io.stdout.write(markdown);
    io.stdout.write(maskedLine(masker));
    io.stdout.write(
      `\nWrote ${join(out, 'simulate.json')}, simulate.md and simulate.html (${tally.transcripts} transcripts, ${tally.errors} errors, ${tally.skipped} skipped)\n`,
    );
    return tally.nothingYielded('simulate', label) ?? (tally.errors > 0 ? EXIT.INPUT_ERRORS : EXIT.OK);
  },
});

async function* transcriptsIn(items: AsyncIterable<InputItem>): AsyncIterable<Transcript> {
  for await (const item of items) if (item.kind === 'transcript') yield item.transcript;
}
