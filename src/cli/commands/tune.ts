import { join } from 'node:path';
import { TcompactError, writeError } from '../../errors.js';
import { CACHE_MODEL_NAMES, parseCacheModel } from '../../provider/cache-rules.js';
import { DEFAULT_PRICES, type PriceFlags } from '../../replay/billing/prices.js';
import { renderTune } from '../../tune/render-tune.js';
import { type TranscriptSource, runTune } from '../../tune/tune-run.js';
import { readInputs } from '../../formats/read-inputs.js';
import { writeFileAtomic } from '../../io/atomic-file.js';
import { makeDir } from '../../io/make-dir.js';
import { DEFAULT_MAX_LINE_BYTES } from '../../io/line-reader.js';
import { writeTunePage } from '../../tune/tune-page.js';
import { getTokenizer } from '../../tokens/tokenizer.js';
import { DEFAULT_WINDOW } from '../../tokens/window.js';
import { defaultWorkers } from '../../pipeline/job/capacity.js';
import { type Command, intOption, parseCommandArgs, requireInputs } from '../command.js';
import { parseFormat, parseTokenizer } from '../compaction-flags.js';
import { EXIT } from '../exit-codes.js';
import { InputTally, nonNegativeOption, positiveOption, recordedOr } from './_eval-options.js';
import { createStatusLine } from '../../report/progress.js';

const DEFAULT_RECALL_FLOOR = 0.95;

export const tuneCommand: Command = {
  name: 'tune',
  summary: 'derive live compaction settings from an archive: candidates replayed, the cheapest that keeps what agents needed, exported',
  help: `Usage: tcompact tune <input...> --out DIR [options]

Replays candidate settings of the runtimes live agents compact with (Anthropic's context editing at several triggers,
keeps, tool exclusions and input clearing; tcompact's ContextManager with and without micro-compaction) over the
archive, as each runtime applies them, with caching billed as the provider bills it. Picks the cheapest with caching
whose hindsight recall (what the sessions used again after each edit, still in the edited context) is at least the
floor, and writes it for each runtime: DIR/exports/anthropic.json (context_management of the beta Messages API,
with the context-management-2025-06-27 beta), langchain.json (LangChain JS ClearToolUsesEdit options), ai-sdk.json
(pruneMessages options) and tcompact.json (ContextManager options); each export is replayed with its runtime's own
semantics, and tune.md says how each runtime loads it. Writes DIR/tune.json, tune.md and tune.html (cost against recall, the frontier marked),
and each candidate's settings in DIR/candidates/ (replay one with simulate --policy anthropic:FILE or config:FILE).

Options:
  --out DIR              output folder (required)
  --window N             context window in tokens (default ${DEFAULT_WINDOW})
  --base-prompt N        tokens every prompt carries besides the messages (system prompt and tools; default 0);
                         'recorded': each transcript's own, as in simulate
  --token-ratio X        the provider's tokens per token of --tokenizer (default 1); 'recorded': each transcript's
                         own, measured from its recorded usage, as in simulate
  --cache MODEL          ${CACHE_MODEL_NAMES.join(', ')} (default: by source, as in simulate)
  --recall-floor X       least hindsight recall of the recommendation, 0 to 1 (default ${DEFAULT_RECALL_FLOOR})
  --price-in X, --price-out X   US dollars per million input and output tokens (defaults ${DEFAULT_PRICES.input}, ${DEFAULT_PRICES.output})
  --workers N            worker threads that replay (default: the number of cores, here ${defaultWorkers()}); same figures for any N
  --tokenizer NAME       o200k_base (default), cl100k_base, or heuristic
  --from FORMAT          force the input format instead of detecting it
  --max-line-bytes N     reject longer lines with E_LINE_TOO_LONG (default ${DEFAULT_MAX_LINE_BYTES})`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs('tune', argv, {
      out: { type: 'string' },
      window: { type: 'string' },
      'base-prompt': { type: 'string' },
      'token-ratio': { type: 'string' },
      cache: { type: 'string' },
      'recall-floor': { type: 'string' },
      'price-in': { type: 'string' },
      'price-out': { type: 'string' },
      tokenizer: { type: 'string' },
      workers: { type: 'string' },
      from: { type: 'string' },
      'max-line-bytes': { type: 'string' },
    });
    const inputs = requireInputs('tune', positionals);
    if (values.out === undefined) throw new TcompactError('E_USAGE', 'tune: --out DIR is required');
    const recallFloor = nonNegativeOption('recall-floor', values['recall-floor'], DEFAULT_RECALL_FLOOR);
    if (recallFloor > 1) throw new TcompactError('E_USAGE', `--recall-floor must be between 0 and 1, got "${values['recall-floor']}"`);
    const prices: PriceFlags = {
      input: nonNegativeOption('price-in', values['price-in'], DEFAULT_PRICES.input),
      output: nonNegativeOption('price-out', values['price-out'], DEFAULT_PRICES.output),
    };
    const cache = parseCacheModel('tune', values.cache);
    const from = parseFormat(values.from);
    const maxLineBytes = intOption('max-line-bytes', values['max-line-bytes'], DEFAULT_MAX_LINE_BYTES, 1);
    const workers = intOption('workers', values.workers, defaultWorkers(), 1, 256);
    const tally = new InputTally(io);
    let firstPass = true;
    // Every pass reads the inputs again; the first one reports their errors and counts them.
    const source: TranscriptSource = async function* () {
      for await (const item of readInputs(inputs, { maxLineBytes, from })) {
        if (firstPass ? tally.accept(item) : item.kind === 'transcript') yield item as Extract<typeof item, { kind: 'transcript' }>;
      }
      firstPass = false;
    };
    if ((await nothingIn(source)) && tally.transcripts === 0) return tally.nothingYielded('tune', inputs) ?? EXIT.INPUT_ERRORS;
    await makeDir(values.out);
    const status = createStatusLine(io.stderr);
    const report = await runTune(source, {
      progress: (text) => status.set(`tune: ${text}`),
      window: intOption('window', values.window, DEFAULT_WINDOW, 1),
      tokenizer: getTokenizer(parseTokenizer(values.tokenizer)),
      prices,
      ...(cache ? { cache } : {}),
      basePrompt: recordedOr(values['base-prompt'], (v) => intOption('base-prompt', v, 0, 0)),
      tokenRatio: recordedOr(values['token-ratio'], (v) => positiveOption('token-ratio', v, 1)),
      recallFloor,
      outDir: values.out,
      workers,
    }).finally(() => status.stop());
    const markdown = renderTune(report);
    try {
      await writeFileAtomic(join(values.out, 'tune.json'), [
        `${JSON.stringify({ tool: 'tcompact tune', inputs, ...report, errors: tally.errors, skipped: tally.skipped }, null, 2)}\n`,
      ]);
      await writeFileAtomic(join(values.out, 'tune.md'), [markdown]);
    } catch (err) {
      throw writeError(err, values.out);
    }
    await writeTunePage(values.out, { inputs, ...report });
    io.stdout.write(markdown);
    io.stdout.write(
      `\nWrote ${join(values.out, 'tune.json')}, tune.md, tune.html and exports/ (${tally.transcripts} transcripts, ${tally.errors} errors, ${tally.skipped} skipped)\n`,
    );
    return tally.errors > 0 ? EXIT.INPUT_ERRORS : EXIT.OK;
  },
};

/** Reads the inputs once (the pass that counts them and reports their errors): true when no transcript came. */
async function nothingIn(source: TranscriptSource): Promise<boolean> {
  let none = true;
  for await (const _ of source()) none = false;
  return none;
}
