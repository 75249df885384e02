import type { Location, NotRead, Session, SourceSummary } from './types.js';

/** What a location holds, from the sessions that passed the filters and the files it cannot read. */
export function summarize(location: Location, sessions: readonly Session[], notRead: readonly NotRead[]): SourceSummary {
  const summary: SourceSummary = {
    agent: location.agent,
    kind: location.kind,
    folder: location.dir,
    origin: location.origin,
    format: location.format,
    sessions: sessions.length,
    files: sessions.reduce((n, s) => n + s.files.length, 0),
    bytes: sessions.reduce((n, s) => n + s.bytes, 0),
  };
  if (sessions.length > 0) {
    summary.first = new Date(Math.min(...sessions.map((s) => s.start))).toISOString();
    summary.last = new Date(Math.max(...sessions.map((s) => s.end))).toISOString();
    const from = new Set(sessions.map((s) => s.startFrom));
    summary.firstFrom = from.size > 1 ? 'mixed' : [...from][0];
    summary.lastFrom = 'file';
  }
  if (notRead.length > 0) summary.notRead = [...notRead];
  return summary;
}
