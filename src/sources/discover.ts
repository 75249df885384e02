import { realpath } from 'node:fs/promises';
import { AGENT_SOURCES } from './agent-sources.js';
import { isDirectory } from './_files.js';
import { sessionMatches } from './filters.js';
import { summarize } from './summarize.js';
import type { Location, SourceEnvironment, SourceFilters, SourceSummary } from './types.js';

export interface DiscoverOptions extends SourceEnvironment {
  /** Which sessions to take (see parseSourceFilters). @default every session found */
  filters?: SourceFilters;
}

export interface Discovery {
  /** The session files that pass the filters, in reading order: what to pass to readInputs. */
  inputs: string[];
  /**
   * For each SQLite store among `inputs`, the ids of its sessions that pass the filters: what to pass to readInputs as
   * its `sessions` option, so that the store's reader reads only those.
   */
  sessions: Record<string, string[]>;
  /** Each folder where something was found, with what passed the filters (and what cannot be read). */
  found: SourceSummary[];
  /** Every folder looked at for the selected agents, found or not. */
  searched: Location[];
}

/**
 * Finds the current user's agent sessions: every folder each agent writes to (from the home folder, the environment
 * and the platform given, never the process's own), what each holds, and the session files that pass the filters.
 * Only reads: listings, sizes, modification times and the first records of each session file.
 */
export async function discoverInputs(options: DiscoverOptions): Promise<Discovery> {
  const { filters = {}, ...environment } = options;
  const inputs: string[] = [];
  const sessions: Record<string, string[]> = {};
  const found: SourceSummary[] = [];
  const searched: Location[] = [];
  const seen = new Set<string>();
  for (const source of AGENT_SOURCES) {
    if (filters.agents !== undefined && !filters.agents.includes(source.agent)) continue;
    for (const location of source.locations(environment)) {
      searched.push(location);
      if (!(await isDirectory(location.dir))) continue;
      // Two names for one folder (~/.config/claude linked to ~/.claude) are read once.
      const key = `${location.kind}\0${await realpath(location.dir).catch(() => location.dir)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const scan = await source.scan(location);
      if (scan.sessions.length === 0 && scan.notRead.length === 0) continue;
      const matched = scan.sessions.filter((s) => sessionMatches(s, filters));
      for (const session of matched) {
        if (session.store === undefined) inputs.push(...session.files);
        else if (sessions[session.store.file] === undefined) {
          inputs.push(session.store.file);
          sessions[session.store.file] = [session.store.session];
        } else sessions[session.store.file].push(session.store.session);
      }
      found.push(summarize(location, matched, scan.notRead));
    }
  }
  return { inputs, sessions, found, searched };
}
