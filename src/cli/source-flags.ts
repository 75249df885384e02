import { isAbsolute, relative, resolve, sep } from 'node:path';
import { TcompactError } from '../errors.js';
import { tildePath } from '../report/render-sources.js';
import { discoverInputs, type Discovery } from '../sources/discover.js';
import { parseSourceFilters } from '../sources/filters.js';
import { AGENT_SOURCES } from '../sources/agent-sources.js';
import { AGENT_NAMES, type SourceEnvironment, type SourceFilters } from '../sources/types.js';
import { currentEnvironment } from './agent-environment.js';
import type { CliIO } from './command.js';
import { text } from './flag-values.js';
import { listFlag, valueFlag } from './flags.js';

/** The flags that select the agent sessions a command reads when it is given no input. */
export const SOURCE_FLAGS = {
  agent: listFlag({ valueName: 'NAME', description: `only this agent's sessions (repeatable): ${AGENT_NAMES.join(', ')}`, parse: text }),
  since: valueFlag({ valueName: 'DATE', description: 'only sessions written on or after DATE (YYYY-MM-DD, a UTC day, or a time with its zone)', parse: text }),
  until: valueFlag({ valueName: 'DATE', description: 'only sessions started on or before DATE', parse: text }),
  project: valueFlag({ valueName: 'TEXT', description: 'only sessions whose project (folder, working directory) contains TEXT, ignoring case', parse: text }),
};

type SourceFlagValues = { agent?: string[]; since?: string; until?: string; project?: string };

/** The filter flags, validated (E_USAGE with an exact message otherwise). */
export function sourceFilters(values: SourceFlagValues): SourceFilters {
  return parseSourceFilters(values);
}

/** The agent sessions the filter flags select, looked for where the io's environment (or the process's) says. */
export async function discover(values: SourceFlagValues, io: CliIO): Promise<Discovery> {
  return discoverInputs({ ...(io.environment ?? currentEnvironment()), filters: sourceFilters(values) });
}

/**
 * A command's inputs: the paths it was given, or, with none, the current user's agent sessions (the filter flags
 * select among them), listed on stderr. `label` names them for messages and pages: the paths, or the folders read;
 * `sessions` the selected sessions of each SQLite store among them (readInputs' option of that name).
 * The filter flags only select discovered sessions: given with inputs, they are a usage error. `output`, the command's
 * --out, must not be inside an agent's folder.
 */
export async function inputsOrDiscovered(
  command: string,
  positionals: string[],
  values: SourceFlagValues,
  io: CliIO,
  output?: string,
): Promise<{ inputs: string[]; label: string[]; discovered: boolean; sessions: Record<string, string[]> }> {
  if (positionals.length > 0) {
    refuseSourceFlags(command, values, 'inputs');
    return { inputs: positionals, label: positionals, discovered: false, sessions: {} };
  }
  const environment = io.environment ?? currentEnvironment();
  if (output !== undefined) refuseOutputInside(command, output, environment);
  const { inputs, found, sessions: selected } = await discoverInputs({ ...environment, filters: sourceFilters(values) });
  if (inputs.length === 0) {
    const why = found.length === 0 ? 'no agent sessions were found' : 'no session found passes the filters';
    throw new TcompactError('E_USAGE', `${command}: no input given, and ${why} (see 'tcompact sources')`);
  }
  const read = found.filter((s) => s.sessions > 0);
  const sessions = read.reduce((n, s) => n + s.sessions, 0);
  io.stderr.write(`tcompact ${command}: no input given: reading ${sessions} agent sessions from ${read.length} ${read.length === 1 ? 'folder' : 'folders'}:\n`);
  for (const s of read)
    io.stderr.write(`  ${s.agent.padEnd(12)} ${`${s.sessions}`.padStart(6)} sessions  ${tildePath(s.folder, environment.home)} (${s.kind})\n`);
  return { inputs, label: read.map((s) => s.folder), discovered: true, sessions: selected };
}

/** The filter flags only select discovered sessions: with inputs (or `--compacted`), they are a usage error. */
export function refuseSourceFlags(command: string, values: SourceFlagValues, given: string): void {
  if (values.agent !== undefined || values.since !== undefined || values.until !== undefined || values.project !== undefined)
    throw new TcompactError(
      'E_USAGE',
      `${command}: --agent, --since, --until and --project select the sessions found when no input is given; they cannot be used with ${given}`,
    );
}

/**
 * The agents' folders are only read: an output in one (any agent's, selected or not) would be written among their
 * sessions, and read back as one by the agent or the next discovery, so it is a usage error.
 */
function refuseOutputInside(command: string, output: string, environment: SourceEnvironment): void {
  const target = resolve(output);
  for (const { dir, agent } of AGENT_SOURCES.flatMap((source) => source.locations(environment))) {
    const within = relative(resolve(dir), target);
    if (within === '' || (within !== '..' && !within.startsWith(`..${sep}`) && !isAbsolute(within)))
      throw new TcompactError(
        'E_USAGE',
        `${command}: --out ${output} is inside ${tildePath(dir, environment.home)}, where ${agent} keeps its sessions: write it elsewhere`,
      );
  }
}
