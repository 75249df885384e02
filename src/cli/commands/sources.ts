import { TcompactError } from '../../errors.js';
import { renderSources } from '../../report/render-sources.js';
import { currentEnvironment } from '../agent-environment.js';
import { defineCommand } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { booleanFlag } from '../flags.js';
import { SOURCE_FLAGS, discover } from '../source-flags.js';

const FLAGS = {
  json: booleanFlag({ description: 'print JSON instead of the table' }),
  ...SOURCE_FLAGS,
};

export const sourcesCommand = defineCommand({
  name: 'sources',
  summary: "where this user's agents keep their sessions, and what each folder holds",
  usage: 'Usage: tcompact sources [options]',
  description: `Finds the sessions of Claude Code, Codex, Gemini CLI, Cline, Roo Code, OpenCode and goose for the current user,
where each agent writes them (CLAUDE_CONFIG_DIR, CODEX_HOME, XDG_* and the other variables each agent honours are
followed; see docs/formats.md), and lists each folder: agent, kind, folder, sessions, bytes, first and last date.
Commands given no input (stats) read these sessions. Nothing is written.`,
  flags: FLAGS,
  positionals: (positionals) => {
    if (positionals.length > 0) throw new TcompactError('E_USAGE', `sources: takes no input, got "${positionals[0]}" (see 'tcompact sources --help')`);
  },
  async run({ values }, io) {
    const { found, searched } = await discover(values, io);
    if (values.json) {
      io.stdout.write(
        `${JSON.stringify({ sources: found, searched: searched.map((l) => ({ agent: l.agent, kind: l.kind, folder: l.dir, origin: l.origin })) }, null, 2)}\n`,
      );
    } else {
      for (const line of renderSources(found, searched, (io.environment ?? currentEnvironment()).home)) io.stdout.write(`${line}\n`);
    }
    return EXIT.OK;
  },
});
