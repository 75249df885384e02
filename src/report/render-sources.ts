import type { Location, SourceSummary } from '../sources/types.js';
import { NO_VALUE, int } from './format.js';
import { markdownTable } from './markdown-table.js';

/** A path under the home folder as `~/...`, shorter to read; others as they are. */
export function tildePath(path: string, home: string): string {
  if (home === '' || !path.startsWith(home)) return path;
  const rest = path.slice(home.length);
  return rest === '' ? '~' : /^[\\/]/.test(rest) ? `~${rest}` : path;
}

const day = (iso: string | undefined): string => (iso === undefined ? NO_VALUE : iso.slice(0, 10));

/**
 * What `tcompact sources` prints: one Markdown table row per folder where sessions were found, then where the dates
 * come from and the files that cannot be read; when nothing was found, every folder that was looked at.
 */
export function renderSources(found: readonly SourceSummary[], searched: readonly Location[], home: string): string[] {
  if (found.length === 0) {
    return [
      'No agent sessions found. Looked in:',
      ...searched.map((l) => `  ${l.agent.padEnd(12)} ${tildePath(l.dir, home)}${l.origin === 'default' ? '' : ` (${l.origin})`}`),
    ];
  }
  const rows = found.map((s) => [s.agent, s.kind, tildePath(s.folder, home), int(s.sessions), int(s.bytes), day(s.first), day(s.last)]);
  const total = found.reduce((n, s) => n + s.sessions, 0);
  const lines = [
    ...markdownTable(['agent', 'kind', 'folder', 'sessions', 'bytes', 'first', 'last'], rows, 'lllrrll'),
    '',
    `${int(total)} sessions in ${found.length} folders. first: ${firstFrom(found)}; last: the latest modification time of a session's files.`,
  ];
  for (const s of found) {
    for (const n of s.notRead ?? [])
      lines.push(`not read: ${s.agent} ${tildePath(s.folder, home)}: ${int(n.files)} ${n.files === 1 ? 'file' : 'files'}, ${int(n.bytes)} bytes, ${n.reason}`);
  }
  return lines;
}

function firstFrom(found: readonly SourceSummary[]): string {
  const from = new Set(found.flatMap((s) => (s.firstFrom === undefined ? [] : s.firstFrom === 'mixed' ? ['session', 'file'] : [s.firstFrom])));
  if (from.size === 1 && from.has('session')) return "the sessions' own recorded start times";
  if (from.size === 1 && from.has('file')) return 'file modification times (no session records its start)';
  return "the sessions' own recorded start times, else their files' modification times";
}
