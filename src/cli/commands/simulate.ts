import { join } from 'node:path';
import { mkdir } from 'node:fs/promises';
import { TcompactError } from '../../errors.js';
import { DEFAULT_POLICIES, POLICIES } from '../../replay/policies/built-in.js';
import { tailFlagOverrides } from '../config-file.js';
import { DEFAULT_PRICES, type PriceFlags } from '../../replay/billing/prices.js';
import { CACHE_MODEL_NAMES, DEFAULT_CALL_GAP_SECONDS, parseCacheModel } from '../../replay/billing/cache-rules.js';
import { renderSimulation } from '../../replay/render-simulate.js';
import { Simulation } from '../../replay/simulation.js';
import { readInputs } from '../../formats/read-inputs.js';
import type { InputItem } from '../../formats/types.js';
import type { Transcript } from '../../model/transcript.js';
import { archiveTokenScale } from '../../replay/billing/token-ratio.js';
import { writeFileAtomic } from '../../io/atomic-file.js';
import { DEFAULT_MAX_LINE_BYTES } from '../../io/line-reader.js';
import { writeSimulatePage } from '../../replay/simulate-page.js';
import { getTokenizer } from '../../tokens/tokenizer.js';
import { DEFAULT_WINDOW } from '../../tokens/window.js';
import { type Command, intOption, parseCommandArgs, requireInputs } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { createLlmSession } from '../../llm/session.js';
import { LLM_FLAG_SPECS, llmOptionsFromFlags } from '../llm-flags.js';
import { InputTally, nonNegativeOption, positiveOption, recordedOr } from './_eval-options.js';
import { parseFormat, parseTokenizer } from '../compaction-flags.js';
import { createStatusLine } from '../../report/progress.js';

export const simulateCommand: Command = {
  name: 'simulate',
  summary: 'replay transcripts as agent loops under compaction policies: tokens billed, compactions, cost',
  help: `Usage: tcompact simulate <input...> --out DIR [--policy NAME]... [options]

Replays each transcript as the agent loop that produced it: every assistant message is one model call whose
prompt is every earlier message as the policy leaves it. Writes simulate.json, simulate.md and simulate.html (a self-contained page with charts) in DIR.

Policies (--policy may repeat; default: all built-in ones; 'none' is always replayed as the baseline):
${Object.values(POLICIES)
  .map((p) => `  ${p.name.padEnd(28)} ${p.summary}`)
  .join('\n')}
  STRATEGY[+STRATEGY]@TRIGGER  any strategy or preset, at TRIGGER = every (each call), a fraction (0.85) or tokens (150000)
  source                       the source's own compactions replayed: at each of its points (Claude Code compact
                               boundaries, Codex compacted records) the context becomes the summary it recorded
  source:STRATEGY[+STRATEGY]   our strategy at exactly those points, and at /compact commands and an agent's Compact
                               tool (J-CLI), with their focus; 'source' runs beside it, and simulate.md compares the two
                               at the points: billed input, cached cost, and the recall of eval's probes
  A policy with an LLM step (summarize@0.9, classify-tangents+checkpoint@0.9) needs --model; with it, auto's
  summarizer is summarize.

Options:
  --out DIR              output directory (required)
  --window N             context window in tokens (default ${DEFAULT_WINDOW})
  --keep-last N, --keep-messages N, --keep-results N
                         the protected tail of the policies' strategies (defaults 0, 10, 10)
  --base-prompt N        tokens added to every prompt for a system prompt and tools the transcripts do not record
                         (Claude Code sessions: about the first call's recorded input; default 0); 'recorded': each
                         transcript's own, its first recorded call's input minus the replayed first prompt, and at
                         each call as much of it warm in the provider's cache as that call recorded reading
  --token-ratio X        the provider's tokens per token of --tokenizer, applied to every count of the replay
                         (default 1); 'recorded': each transcript's own scale, measured from its recorded usage (the
                         growth of the recorded input between calls over the same messages counted here, on the
                         intervals the record shows clean: a ratio per token, 1.07-1.21x o200k on Claude Code
                         sessions, and a framing per piece of text); the archive's medians for a transcript with
                         too few clean intervals
  --cooldown N           calls after a compaction with no new attempt (default 0)
  --max-attempts N       compactions in a row that stay above the trigger before the run is stuck (default 3)
  --cache MODEL          the provider's prompt cache: ${CACHE_MODEL_NAMES.join(', ')} (default by source:
                         Claude Code anthropic-5m, Codex openai, others by their recorded model, else anthropic-5m);
                         caches expire by the calls' recorded timestamps
  --call-gap SECONDS     seconds between calls of a transcript without timestamps (default ${DEFAULT_CALL_GAP_SECONDS})
  --price-in X           US dollars per million uncached input tokens (default ${DEFAULT_PRICES.input})
  --price-cache-write X  per million input tokens written to the cache (default: the cache model's multiple of
                         --price-in: 1.25 anthropic-5m, 2 anthropic-1h, 1 openai; ideal ${DEFAULT_PRICES.cacheWrite})
  --price-cached X       per million input tokens read from the cache (default: 0.1 x --price-in; ideal ${DEFAULT_PRICES.cached})
  --price-out X          per million output tokens (default ${DEFAULT_PRICES.output})
  --model NAME           the model of the policies' LLM steps (summarize, classify-tangents); their calls are billed
                         in their own column at the model's list price (else --price-in/--price-out)
  --batch                bill those calls at the Batch API's price: half the list price, or --price-batch-in X and
                         --price-batch-out X (the replay still asks the model online)
  --llm URL              its OpenAI-compatible base URL (default: OPENAI_BASE_URL, else OpenAI); key: OPENAI_API_KEY
  --llm-window N         its context window (default: known models' own, else 128000)
  --llm-concurrency N, --rpm N, --tpm N   its requests in flight (default 4), per minute, tokens per minute
  --focus TEXT           summarize's focus
  --tokenizer NAME       o200k_base (default), cl100k_base, or heuristic
  --from FORMAT          force the input format instead of detecting it
  --max-line-bytes N     reject longer lines with E_LINE_TOO_LONG (default ${DEFAULT_MAX_LINE_BYTES})`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs('simulate', argv, {
      out: { type: 'string' },
      policy: { type: 'string', multiple: true },
      window: { type: 'string' },
      cooldown: { type: 'string' },
      'base-prompt': { type: 'string' },
      'token-ratio': { type: 'string' },
      'keep-last': { type: 'string' },
      'keep-messages': { type: 'string' },
      'keep-results': { type: 'string' },
      'max-attempts': { type: 'string' },
      cache: { type: 'string' },
      'call-gap': { type: 'string' },
      'price-in': { type: 'string' },
      'price-cache-write': { type: 'string' },
      'price-cached': { type: 'string' },
      'price-out': { type: 'string' },
      batch: { type: 'boolean' },
      'price-batch-in': { type: 'string' },
      'price-batch-out': { type: 'string' },
      model: LLM_FLAG_SPECS.model,
      llm: LLM_FLAG_SPECS.llm,
      'llm-window': LLM_FLAG_SPECS['llm-window'],
      'llm-concurrency': LLM_FLAG_SPECS['llm-concurrency'],
      rpm: LLM_FLAG_SPECS.rpm,
      tpm: LLM_FLAG_SPECS.tpm,
      focus: LLM_FLAG_SPECS.focus,
      tokenizer: { type: 'string' },
      from: { type: 'string' },
      'max-line-bytes': { type: 'string' },
    });
    const inputs = requireInputs('simulate', positionals);
    if (values.out === undefined) throw new TcompactError('E_USAGE', 'simulate: --out DIR is required');
    const cache = parseCacheModel('simulate', values.cache);
    const optionalPrice = (flag: string, value: string | undefined) => (value === undefined ? undefined : nonNegativeOption(flag, value, 0));
    const prices: PriceFlags = {
      input: nonNegativeOption('price-in', values['price-in'], DEFAULT_PRICES.input),
      output: nonNegativeOption('price-out', values['price-out'], DEFAULT_PRICES.output),
    };
    const cacheWrite = optionalPrice('price-cache-write', values['price-cache-write']);
    const cached = optionalPrice('price-cached', values['price-cached']);
    if (cacheWrite !== undefined) prices.cacheWrite = cacheWrite;
    if (cached !== undefined) prices.cached = cached;
    const tokenizer = getTokenizer(parseTokenizer(values.tokenizer));
    // --price-in and --price-out price the replayed agent's calls here, not the LLM steps' model.
    // --batch prices the LLM steps' calls; the replay cannot wait for batches, so they are asked online.
    const batchFlag = (['batch', 'price-batch-in', 'price-batch-out'] as const).find((f) => values[f] !== undefined);
    if (batchFlag && values.model === undefined)
      throw new TcompactError('E_USAGE', `simulate: --${batchFlag} needs --model NAME (only the LLM steps' calls have a batch price)`);
    if (!values.batch && (values['price-batch-in'] !== undefined || values['price-batch-out'] !== undefined))
      throw new TcompactError('E_USAGE', 'simulate: --price-batch-in and --price-batch-out need --batch');
    const batch = values.batch
      ? { in: optionalPrice('price-batch-in', values['price-batch-in']), out: optionalPrice('price-batch-out', values['price-batch-out']) }
      : undefined;
    const [llmOptions] = llmOptionsFromFlags('simulate', {
      ...values,
      'price-in': undefined,
      'price-out': undefined,
      batch: undefined,
      'price-batch-in': undefined,
      'price-batch-out': undefined,
    });
    const maxLineBytes = intOption('max-line-bytes', values['max-line-bytes'], DEFAULT_MAX_LINE_BYTES, 1);
    const tokenRatio = recordedOr(values['token-ratio'], (v) => positiveOption('token-ratio', v, 1));
    // A first pass for the archive's token scale, which stands in for a transcript with too few clean intervals.
    const tokenScaleFallback =
      tokenRatio === 'recorded'
        ? await archiveTokenScale(transcriptsIn(readInputs(inputs, { maxLineBytes, from: parseFormat(values.from) })), tokenizer)
        : undefined;
    const llm = llmOptions === undefined ? undefined : await createLlmSession(llmOptions);
    const simulation = new Simulation({
      policies: values.policy ?? DEFAULT_POLICIES,
      window: intOption('window', values.window, DEFAULT_WINDOW, 1),
      tokenizer,
      prices,
      cache,
      callGapSeconds: nonNegativeOption('call-gap', values['call-gap'], DEFAULT_CALL_GAP_SECONDS),
      cooldown: intOption('cooldown', values.cooldown, 0, 0),
      maxAttempts: intOption('max-attempts', values['max-attempts'], 3, 1),
      basePrompt: recordedOr(values['base-prompt'], (v) => intOption('base-prompt', v, 0, 0)),
      tokenRatio,
      ...(tokenScaleFallback ? { tokenScaleFallback } : {}),
      llm,
      ...(batch ? { batch } : {}),
      focus: values.focus,
      tail: tailFlagOverrides(values),
    });
    const tally = new InputTally(io);
    const status = createStatusLine(io.stderr);
    try {
      for await (const item of readInputs(inputs, { maxLineBytes, from: parseFormat(values.from) })) {
        if (!tally.accept(item)) continue;
        await simulation.add(item.transcript, item);
        status.set(`simulate: ${tally.transcripts} transcripts replayed`);
      }
    } finally {
      status.stop();
      await llm?.close();
    }
    const report = simulation.report();
    const markdown = renderSimulation(report);
    try {
      await mkdir(values.out, { recursive: true });
      await writeFileAtomic(join(values.out, 'simulate.json'), [
        `${JSON.stringify({ tool: 'tcompact simulate', inputs, ...report, errors: tally.errors, skipped: tally.skipped }, null, 2)}\n`,
      ]);
      await writeFileAtomic(join(values.out, 'simulate.md'), [markdown]);
    } catch (err) {
      throw new TcompactError('E_IO', `cannot write ${values.out}: ${(err as Error).message}`);
    }
    await writeSimulatePage(values.out, { inputs, ...report });
    io.stdout.write(markdown);
    io.stdout.write(
      `\nWrote ${join(values.out, 'simulate.json')}, simulate.md and simulate.html (${tally.transcripts} transcripts, ${tally.errors} errors, ${tally.skipped} skipped)\n`,
    );
    return tally.nothingYielded('simulate', inputs) ?? (tally.errors > 0 ? EXIT.INPUT_ERRORS : EXIT.OK);
  },
};

async function* transcriptsIn(items: AsyncIterable<InputItem>): AsyncIterable<Transcript> {
  for await (const item of items) if (item.kind === 'transcript') yield item.transcript;
}
