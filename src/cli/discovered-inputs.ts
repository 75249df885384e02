import { isAbsolute, relative, resolve, sep } from 'node:path';
import { TcompactError } from '../errors.js';
import { tildePath } from '../report/render-sources.js';
import type { Discovery } from '../sources/discover.js';
import type { SourceEnvironment } from '../sources/types.js';
import { currentEnvironment } from './agent-environment.js';
import type { CliIO } from './command.js';
import { type SourceFlagValues, refuseSourceFlags, sourceFilters } from './source-flags.js';

/** The agent sessions the filter flags select, looked for where the io's environment (or the process's) says. */
export async function discover(values: SourceFlagValues, io: CliIO): Promise<Discovery> {
  // Every agent's source and store reader: loaded only by a command that looks for sessions, not by one given inputs.
  const { discoverInputs } = await import('../sources/discover.js');
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
  if (output !== undefined) await refuseOutputInside(command, output, environment);
  const { inputs, found, sessions: selected } = await discover(values, { ...io, environment });
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

/**
 * The agents' folders are only read: an output in one (any agent's, selected or not) would be written among their
 * sessions, and read back as one by the agent or the next discovery, so it is a usage error.
 */
async function refuseOutputInside(command: string, output: string, environment: SourceEnvironment): Promise<void> {
  const { AGENT_SOURCES } = await import('../sources/agent-sources.js');
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
