import { TcompactError } from '../../errors.js';
import { defineCommand } from '../command.js';
import { SOURCE_FLAGS } from '../source-flags.js';
import { integer, text } from '../flag-values.js';
import { booleanFlag, valueFlag } from '../flags.js';
import { INPUT_FLAGS } from '../input-flags.js';
import { BATCH_FLAGS, LLM_FLAGS } from '../llm-flags.js';
import { COMPACTION_FLAGS, TAIL_FLAGS } from '../compaction-flags.js';
import { SECRET_FLAGS } from '../secret-flags.js';

/** Strategies `eval` compares when none is named: those of this list that are registered. */
export const DEFAULT_EVAL_STRATEGIES = ['auto', 'mask-observations', 'checkpoint', 'strip-tool-results', 'dedup-tools'];

export const FLAGS = {
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

export const evalCommand = defineCommand({
  name: 'eval',
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
  run: async (args, io) => (await import('../actions/eval.js')).evalAction(args, io),
});
