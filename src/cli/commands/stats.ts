import { DEFAULT_WINDOW } from '../../tokens/window.js';
import { defineCommand } from '../command.js';
import { integer, text } from '../flag-values.js';
import { booleanFlag, valueFlag } from '../flags.js';
import { INPUT_FLAGS } from '../input-flags.js';
import { SOURCE_FLAGS } from '../source-flags.js';
import { SECRET_FLAGS } from '../secret-flags.js';

export const FLAGS = {
  json: booleanFlag({ description: 'print JSON instead of the table' }),
  html: valueFlag({ valueName: 'FILE', description: 'also write a self-contained page with charts: tokens per category, window tiers', parse: text }),
  window: valueFlag({ valueName: 'N', description: 'context window in tokens', parse: integer(1), default: DEFAULT_WINDOW }),
  ...INPUT_FLAGS,
  ...SOURCE_FLAGS,
  ...SECRET_FLAGS,
};

export const statsCommand = defineCommand({
  name: 'stats',
  usage: 'Usage: tcompact stats [input...] [options]',
  description: `Counts tokens per transcript and per category (system, tools, user, assistant, reasoning, toolCalls,
toolResults, attachments, other, overhead) and shows how much of a context window each transcript fills:
ok (<80%), warning (80-90%), over the compaction threshold (90-98%), over the hard limit (>=98%).
With no input, reads the current user's agent sessions ('tcompact sources' lists them), which the
--agent, --since, --until and --project flags select, and says on stderr which folders it read.`,
  flags: FLAGS,
  run: async (args, io) => (await import('../actions/stats.js')).statsAction(args, io),
});
