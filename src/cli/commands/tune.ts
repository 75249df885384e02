import { defaultWorkers } from '../../pipeline/job/capacity.js';
import { defineCommand } from '../command.js';
import { SOURCE_FLAGS } from '../source-flags.js';
import { fraction, integer, text } from '../flag-values.js';
import { listFlag, valueFlag } from '../flags.js';
import { INPUT_FLAGS } from '../input-flags.js';
import { REPLAY_FLAGS } from '../replay-flags.js';
import { SECRET_FLAGS } from '../secret-flags.js';

const DEFAULT_RECALL_FLOOR = 0.95;

export const FLAGS = {
  out: valueFlag({ valueName: 'DIR', description: 'output folder', parse: text, required: true }),
  ...REPLAY_FLAGS,
  'recall-floor': valueFlag({
    valueName: 'X',
    description: 'least hindsight recall of the recommendation, 0 to 1',
    parse: fraction,
    default: DEFAULT_RECALL_FLOOR,
  }),
  candidate: listFlag({
    valueName: 'NAME',
    description: 'replay only this candidate of the grid (repeatable; the names of DIR/candidates/): the baselines and frontier still are',
    parse: text,
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
  run: async (args, io) => (await import('../actions/tune.js')).tuneAction(args, io),
});
