import { statOf } from './_files.js';
import type { AgentName, NotRead, Session } from './types.js';

/**
 * A session of these files (the first one is the session's own): sizes and end time from the files themselves, and
 * from `alsoCounts`, files the reader takes in through the first one (OpenCode's messages and parts).
 */
export async function sessionOf(
  agent: AgentName,
  files: string[],
  facts: { start?: number; projects: (string | undefined)[]; alsoCounts?: string[] },
): Promise<Session | undefined> {
  let bytes = 0;
  let end = 0;
  const found: string[] = [];
  for (const file of [...files, ...(facts.alsoCounts ?? [])]) {
    const info = await statOf(file);
    if (!info?.isFile()) continue;
    if (files.includes(file)) found.push(file);
    bytes += info.size;
    end = Math.max(end, info.mtimeMs);
  }
  if (found.length === 0) return undefined;
  return {
    agent,
    files: found,
    bytes,
    start: facts.start ?? end,
    startFrom: facts.start === undefined ? 'file' : 'session',
    // A start recorded after the last write (a file copied with an older time) still makes a valid interval.
    end: Math.max(end, facts.start ?? end),
    projects: facts.projects.filter((p): p is string => typeof p === 'string' && p !== ''),
  };
}

/** Files of one kind a location holds but tcompact cannot read, counted; none when there are none. */
export async function notReadOf(files: string[], reason: string): Promise<NotRead[]> {
  let bytes = 0;
  let count = 0;
  for (const file of files) {
    const info = await statOf(file);
    if (!info?.isFile()) continue;
    count++;
    bytes += info.size;
  }
  return count === 0 ? [] : [{ files: count, bytes, reason }];
}
