import { TcompactError } from '../errors.js';
import { parseSourceFilters } from '../sources/filters.js';
import { AGENT_NAMES, type SourceFilters } from '../sources/types.js';
import { text } from './flag-values.js';
import { listFlag, valueFlag } from './flags.js';

/** The flags that select the agent sessions a command reads when it is given no input. */
export const SOURCE_FLAGS = {
  agent: listFlag({ valueName: 'NAME', description: `only this agent's sessions (repeatable): ${AGENT_NAMES.join(', ')}`, parse: text }),
  since: valueFlag({ valueName: 'DATE', description: 'only sessions written on or after DATE (YYYY-MM-DD, a UTC day, or a time with its zone)', parse: text }),
  until: valueFlag({ valueName: 'DATE', description: 'only sessions started on or before DATE', parse: text }),
  project: valueFlag({ valueName: 'TEXT', description: 'only sessions whose project (folder, working directory) contains TEXT, ignoring case', parse: text }),
};

export type SourceFlagValues = { agent?: string[]; since?: string; until?: string; project?: string };

/** The filter flags, validated (E_USAGE with an exact message otherwise). */
export function sourceFilters(values: SourceFlagValues): SourceFilters {
  return parseSourceFilters(values);
}

/** The filter flags only select discovered sessions: with inputs (or `--compacted`), they are a usage error. */
export function refuseSourceFlags(command: string, values: SourceFlagValues, given: string): void {
  if (values.agent !== undefined || values.since !== undefined || values.until !== undefined || values.project !== undefined)
    throw new TcompactError(
      'E_USAGE',
      `${command}: --agent, --since, --until and --project select the sessions found when no input is given; they cannot be used with ${given}`,
    );
}
