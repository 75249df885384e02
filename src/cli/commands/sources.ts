import { TcompactError } from '../../errors.js';
import { defineCommand } from '../command.js';
import { booleanFlag } from '../flags.js';
import { SOURCE_FLAGS } from '../source-flags.js';

export const FLAGS = {
  json: booleanFlag({ description: 'print JSON instead of the table' }),
  ...SOURCE_FLAGS,
};

export const sourcesCommand = defineCommand({
  name: 'sources',
  usage: 'Usage: tcompact sources [options]',
  description: `Finds the sessions of Claude Code, Codex, Gemini CLI, Cline, Roo Code, OpenCode and goose for the current user,
where each agent writes them (CLAUDE_CONFIG_DIR, CODEX_HOME, XDG_* and the other variables each agent honours are
followed; see docs/formats.md), and lists each folder: agent, kind, folder, sessions, bytes, first and last date.
Commands given no input (stats) read these sessions. Nothing is written.`,
  flags: FLAGS,
  positionals: (positionals) => {
    if (positionals.length > 0) throw new TcompactError('E_USAGE', `sources: takes no input, got "${positionals[0]}" (see 'tcompact sources --help')`);
  },
  run: async (args, io) => (await import('../actions/sources.js')).sourcesAction(args, io),
});
