import { join } from 'node:path';
import { TcompactError, writeError } from '../../errors.js';
import { tailFlagOverrides } from '../config-file.js';
import { renderSimulation } from '../../replay/render-simulate.js';
import { Simulation } from '../../replay/simulation.js';
import { readInputs } from '../../formats/read-inputs.js';
import type { InputItem } from '../../formats/types.js';
import type { Transcript } from '../../model/transcript.js';
import { ArchiveFallbacks } from '../../replay/archive-fallbacks.js';
import { writeFileAtomic } from '../../io/atomic-file.js';
import { makeDir } from '../../io/make-dir.js';
import { writeSimulatePage } from '../../replay/simulate-page.js';
import { type Unreplayable, renderUnreplayable, shortOfTotalsReason, unreplayableReason } from '../../replay/unreplayable.js';
import { getTokenizer } from '../../tokens/tokenizer.js';
import { inputsOrDiscovered } from '../discovered-inputs.js';
import { priceFlags } from '../replay-flags.js';
import { EXIT } from '../exit-codes.js';
import { createLlmSession } from '../../llm/session.js';
import { llmOptionsFromFlags } from '../llm-flags.js';
import { InputTally } from '../commands/_input-tally.js';
import { createStatusLine } from '../../report/progress.js';
import { maskedLine, maskerFromFlags } from '../secret-masking.js';
import type { CliIO } from '../command.js';
import type { ParsedFlags } from '../flags.js';
import type { FLAGS } from '../commands/simulate.js';

/** What 'tcompact simulate' does with its parsed flags; loaded only when the command runs. */
export async function simulateAction({ values, positionals }: ParsedFlags<typeof FLAGS>, io: CliIO): Promise<number> {
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
  // A first pass for what the replay takes from the whole archive: its token scale, which stands in for a transcript
  // with too few clean intervals, and each agent's base prompt, which stands in for a session that records only its totals.
  const fallbacks = new ArchiveFallbacks(tokenizer, { tokenRatio: values['token-ratio'], basePrompt: values['base-prompt'] });
  if (fallbacks.needed) for await (const item of transcriptItemsIn(readInputs(inputs, { maxLineBytes, from: values.from, sessions }))) fallbacks.add(item);
  const { tokenScaleFallback, basePromptFallback } = fallbacks.options();
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
    ...(basePromptFallback ? { basePromptFallback } : {}),
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
      const replayed = await simulation.replayTranscript(item.transcript, item);
      const base = values['base-prompt'];
      const short = shortOfTotalsReason(replayed.result.fidelity, base === 'recorded' ? (replayed.result.basePrompt ?? 0) > 0 : base > 0);
      if (short !== undefined) {
        io.stderr.write(`simulate: ${item.transcript.id} (${item.file}) is not replayed: ${short}\n`);
        unreplayable.push({ id: item.transcript.id, file: item.file, reason: short });
        continue;
      }
      simulation.accept(replayed);
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
}

async function* transcriptItemsIn(items: AsyncIterable<InputItem>): AsyncIterable<{ transcript: Transcript; format?: string }> {
  for await (const item of items) if (item.kind === 'transcript') yield item;
}
