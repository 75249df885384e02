import { DEFAULT_POLICIES, POLICIES } from '../../replay/policies/built-in.js';
import { DEFAULT_PRICES } from '../../replay/billing/prices.js';
import { DEFAULT_CALL_GAP_SECONDS } from '../../provider/cache-rules.js';
import { defineCommand } from '../command.js';
import { SOURCE_FLAGS } from '../source-flags.js';
import { TAIL_FLAGS } from '../compaction-flags.js';
import { integer, nonNegative, text } from '../flag-values.js';
import { booleanFlag, listFlag, valueFlag } from '../flags.js';
import { INPUT_FLAGS } from '../input-flags.js';
import { REPLAY_FLAGS } from '../replay-flags.js';
import { LLM_FLAGS } from '../llm-flags.js';
import { SECRET_FLAGS } from '../secret-flags.js';

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

export const FLAGS = {
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
  run: async (args, io) => (await import('../actions/simulate.js')).simulateAction(args, io),
});
