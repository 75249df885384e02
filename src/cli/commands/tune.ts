import { join } from 'node:path';
import { writeError } from '../../errors.js';
import { renderTune } from '../../tune/render-tune.js';
import { type TranscriptSource, runTune } from '../../tune/tune-run.js';
import { readInputs } from '../../formats/read-inputs.js';
import { writeFileAtomic } from '../../io/atomic-file.js';
import { makeDir } from '../../io/make-dir.js';
import { writeTunePage } from '../../tune/tune-page.js';
import { getTokenizer } from '../../tokens/tokenizer.js';
import { defaultWorkers } from '../../pipeline/job/capacity.js';
import { defineCommand } from '../command.js';
import { SOURCE_FLAGS, inputsOrDiscovered } from '../source-flags.js';
import { fraction, integer, text } from '../flag-values.js';
import { valueFlag } from '../flags.js';
import { INPUT_FLAGS } from '../input-flags.js';
import { REPLAY_FLAGS, priceFlags } from '../replay-flags.js';
import { EXIT } from '../exit-codes.js';
import { InputTally } from './_input-tally.js';
import { createStatusLine } from '../../report/progress.js';
import { SECRET_FLAGS, maskedLine, maskerFromFlags } from '../secret-flags.js';

const DEFAULT_RECALL_FLOOR = 0.95;

const FLAGS = {
  out: valueFlag({ valueName: 'DIR', description: 'output folder', parse: text, required: true }),
  ...REPLAY_FLAGS,
  'recall-floor': valueFlag({
    valueName: 'X',
    description: 'least hindsight recall of the recommendation, 0 to 1',
    parse: fraction,
    default: DEFAULT_RECALL_FLOOR,
  }),
  workers: valueFlag({
    valueName: 'N',
    description: 'worker threads that replay; same figures for any N',
    parse: integer(1, 256),
    default: defaultWorkers(),
    shownDefault: `the number of cores, here ${defaultWorkers()}`,
  }),
  ...INPUT_FLAGS,
  ...SOURCE_FLAGS,
  ...SECRET_FLAGS,
};

export const tuneCommand = defineCommand({
  name: 'tune',
  summary: 'derive live compaction settings from an archive: candidates replayed, the cheapest that keeps what agents needed, exported',
  usage: 'Usage: tcompact tune [input...] --out DIR [options]',
  description: `Replays candidate settings of the runtimes live agents compact with (Anthropic's context editing at several triggers,
keeps, tool exclusions and input clearing; tcompact's ContextManager with and without micro-compaction) over the
archive, as each runtime applies them, with caching billed as the provider bills it. Picks the cheapest with caching
whose hindsight recall (what the sessions used again after each edit, still in the edited context) is at least the
floor, and writes it for each runtime: DIR/exports/anthropic.json (context_management of the beta Messages API,
with the context-management-2025-06-27 beta), langchain.json (LangChain JS ClearToolUsesEdit options), ai-sdk.json
(pruneMessages options) and tcompact.json (ContextManager options); each export is replayed with its runtime's own
semantics, and tune.md says how each runtime loads it. Writes DIR/tune.json, tune.md and tune.html (cost against recall, the frontier marked),
and each candidate's settings in DIR/candidates/ (replay one with simulate --policy anthropic:FILE or config:FILE).
With no input, reads the current user's agent sessions ('tcompact sources' lists them), which the
--agent, --since, --until and --project flags select, and says on stderr which folders it read.`,
  flags: FLAGS,
  async run({ values, positionals }, io) {
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
  },
});

/** Reads the inputs once (the pass that counts them and reports their errors): true when no transcript came. */
async function nothingIn(source: TranscriptSource): Promise<boolean> {
  let none = true;
  for await (const _ of source()) none = false;
  return none;
}
