import { TcompactError } from '../errors.js';
import { AGENT_NAMES, type AgentName, type Session, type SourceFilters } from './types.js';

/** The four filter flags as given on the command line. */
export interface RawSourceFilters {
  agent?: readonly string[];
  since?: string;
  until?: string;
  project?: string;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Validates the filter flags once, at the boundary, with an exact E_USAGE message for each mistake. A date is a UTC day
 * (`2026-02-10`: `--since` from its first millisecond, `--until` to its last) or a time with its zone
 * (`2026-02-10T09:00:00Z`, `2026-02-10T10:00+01:00`), so that the selection does not depend on the machine's zone.
 */
export function parseSourceFilters(raw: RawSourceFilters): SourceFilters {
  const filters: SourceFilters = {};
  if (raw.agent !== undefined && raw.agent.length > 0) {
    for (const name of raw.agent) {
      if (!(AGENT_NAMES as readonly string[]).includes(name))
        throw new TcompactError('E_USAGE', `--agent must be one of ${AGENT_NAMES.join(', ')}; got "${name}"`);
    }
    filters.agents = [...new Set(raw.agent as AgentName[])];
  }
  if (raw.since !== undefined) filters.since = parseDate('since', raw.since, 'start');
  if (raw.until !== undefined) filters.until = parseDate('until', raw.until, 'end');
  if (filters.since !== undefined && filters.until !== undefined && filters.since > filters.until) {
    throw new TcompactError('E_USAGE', `--since ${raw.since} is after --until ${raw.until}`);
  }
  if (raw.project !== undefined) {
    if (raw.project.trim() === '') throw new TcompactError('E_USAGE', '--project must not be empty');
    filters.project = raw.project;
  }
  return filters;
}

function parseDate(flag: 'since' | 'until', value: string, edge: 'start' | 'end'): number {
  const day = DAY.exec(value);
  if (day) {
    const [y, m, d] = [Number(day[1]), Number(day[2]), Number(day[3])];
    const start = Date.UTC(y, m - 1, d);
    const check = new Date(start);
    if (check.getUTCFullYear() === y && check.getUTCMonth() === m - 1 && check.getUTCDate() === d)
      return edge === 'start' ? start : Date.UTC(y, m - 1, d + 1) - 1;
  } else if (TIME.test(value)) {
    const ms = Date.parse(value);
    if (!Number.isNaN(ms)) return ms;
  }
  throw new TcompactError('E_USAGE', `--${flag} must be a day (YYYY-MM-DD, UTC) or a time with its zone (YYYY-MM-DDThh:mm[:ss]Z or +hh:mm), got "${value}"`);
}

/**
 * Whether a session passes every filter: its agent is one of `agents`; it was still written on or after `since` (its
 * last write) and had started by `until` (its start), so a session that spans the range's edge is kept; one of its
 * projects contains `project`, ignoring case (a session that records no project never matches).
 */
export function sessionMatches(session: Session, filters: SourceFilters): boolean {
  if (filters.agents !== undefined && !filters.agents.includes(session.agent)) return false;
  if (filters.since !== undefined && session.end < filters.since) return false;
  if (filters.until !== undefined && session.start > filters.until) return false;
  if (filters.project !== undefined) {
    const needle = filters.project.toLowerCase();
    if (!session.projects.some((p) => p.toLowerCase().includes(needle))) return false;
  }
  return true;
}
