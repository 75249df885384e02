import { join } from 'node:path';
import { writeError } from '../../errors.js';
import { renderTune } from '../../tune/render-tune.js';
import { type TranscriptSource, runTune } from '../../tune/tune-run.js';
import { readInputs } from '../../formats/read-inputs.js';
import { writeFileAtomic } from '../../io/atomic-file.js';
import { makeDir } from '../../io/make-dir.js';
import { writeTunePage } from '../../tune/tune-page.js';
import { getTokenizer } from '../../tokens/tokenizer.js';
import { inputsOrDiscovered } from '../discovered-inputs.js';
import { priceFlags } from '../replay-flags.js';
import { EXIT } from '../exit-codes.js';
import { InputTally } from '../commands/_input-tally.js';
import { createStatusLine } from '../../report/progress.js';
import { maskedLine, maskerFromFlags } from '../secret-masking.js';
import type { CliIO } from '../command.js';
import type { ParsedFlags } from '../flags.js';
import type { FLAGS } from '../commands/tune.js';

/** What 'tcompact tune' does with its parsed flags; loaded only when the command runs. */
export async function tuneAction({ values, positionals }: ParsedFlags<typeof FLAGS>, io: CliIO): Promise<number> {
  const { out, cache, from, workers } = values;
  const { inputs, label, sessions } = await inputsOrDiscovered('tune', positionals, values, io, out);
  const prices = priceFlags(values);
  const maxLineBytes = values['max-line-bytes'];
  const tally = new InputTally(io);
  let firstPass = true;
  // Every pass reads the inputs again; the first one reports their errors and counts them.
  const source: TranscriptSource = async function* () {
    for await (const item of readInputs(inputs, { maxLineBytes, from, sessions })) {
      if (firstPass ? tally.accept(item) : item.kind === 'transcript') yield item as Extract<typeof item, { kind: 'transcript' }>;
    }
    firstPass = false;
  };
  if ((await nothingIn(source)) && tally.transcripts === 0) return tally.nothingYielded('tune', label) ?? EXIT.INPUT_ERRORS;
  await makeDir(out);
  const status = createStatusLine(io.stderr);
  const tuned = await runTune(source, {
    progress: (line) => status.set(`tune: ${line}`),
    window: values.window,
    tokenizer: getTokenizer(values.tokenizer),
    prices,
    ...(values.prices ? { modelPrices: values.prices } : {}),
    ...(cache ? { cache } : {}),
    basePrompt: values['base-prompt'],
    tokenRatio: values['token-ratio'],
    recallFloor: values['recall-floor'],
    ...(values.candidate ? { candidates: values.candidate } : {}),
    outDir: out,
    workers,
  }).finally(() => status.stop());
  const masker = maskerFromFlags(values);
  const report = masker.value(tuned);
  const markdown = renderTune(report);
  try {
    await writeFileAtomic(join(out, 'tune.json'), [
      `${JSON.stringify({ tool: 'tcompact tune', inputs: label, ...report, errors: tally.errors, skipped: tally.skipped, secretsMasked: masker.counts }, null, 2)}\n`,
    ]);
    await writeFileAtomic(join(out, 'tune.md'), [markdown]);
  } catch (err) {
    throw writeError(err, out);
  }
  await writeTunePage(out, { inputs: label, ...report });
  io.stdout.write(markdown);
  io.stdout.write(maskedLine(masker));
  io.stdout.write(
    `\nWrote ${join(out, 'tune.json')}, tune.md, tune.html and exports/ (${tally.transcripts} transcripts, ${tally.errors} errors, ${tally.skipped} skipped)\n`,
  );
  return tally.errors > 0 ? EXIT.INPUT_ERRORS : EXIT.OK;
}

/** Reads the inputs once (the pass that counts them and reports their errors): true when no transcript came. */
async function nothingIn(source: TranscriptSource): Promise<boolean> {
  let none = true;
  for await (const _ of source()) none = false;
  return none;
}
