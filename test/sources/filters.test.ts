import { describe, expect, it } from 'vitest';
import { parseSourceFilters, sessionMatches } from '../../src/sources/filters.js';
import type { Session } from '../../src/sources/types.js';

const usage = (raw: Parameters<typeof parseSourceFilters>[0]): string => {
  try {
    parseSourceFilters(raw);
    return 'no error';
  } catch (err) {
    return `${(err as { code: string }).code}: ${(err as Error).message}`;
  }
};

const session = (over: Partial<Session>): Session => ({
  agent: 'codex',
  files: ['/s.jsonl'],
  bytes: 1,
  start: Date.parse('2026-02-10T10:00:00Z'),
  startFrom: 'session',
  end: Date.parse('2026-02-12T18:00:00Z'),
  projects: ['/home/dev/todo-cli'],
  ...over,
});

describe('the filter flags', () => {
  it('takes a UTC day for --since from its first millisecond and for --until to its last', () => {
    expect(parseSourceFilters({ since: '2026-02-10', until: '2026-02-10' })).toEqual({
      since: Date.parse('2026-02-10T00:00:00.000Z'),
      until: Date.parse('2026-02-10T23:59:59.999Z'),
    });
  });

  it('takes a time with its zone', () => {
    expect(parseSourceFilters({ since: '2026-02-10T10:00+01:00' }).since).toBe(Date.parse('2026-02-10T09:00:00Z'));
  });

  it('rejects a date that is not a day or a zoned time, with the exact message', () => {
    const expected = (flag: string, value: string) =>
      `E_USAGE: --${flag} must be a day (YYYY-MM-DD, UTC) or a time with its zone (YYYY-MM-DDThh:mm[:ss]Z or +hh:mm), got "${value}"`;
    expect(usage({ since: 'yesterday' })).toBe(expected('since', 'yesterday'));
    expect(usage({ until: '2026-02-30' })).toBe(expected('until', '2026-02-30'));
    expect(usage({ since: '2026-02-10T10:00' })).toBe(expected('since', '2026-02-10T10:00'));
  });

  it('rejects a range that ends before it starts', () => {
    expect(usage({ since: '2026-03-01', until: '2026-02-01' })).toBe('E_USAGE: --since 2026-03-01 is after --until 2026-02-01');
  });

  it('rejects an unknown agent, naming the known ones', () => {
    expect(usage({ agent: ['codex', 'claude'] })).toBe(
      'E_USAGE: --agent must be one of claude-code, codex, gemini, cline, roo-code, kilo-code, opencode, kilo, goose, pi, openclaw, amp, kimi, droid, qwen, continue, copilot, crush, zed, hermes; got "claude"',
    );
  });

  it('rejects an empty --project', () => {
    expect(usage({ project: ' ' })).toBe('E_USAGE: --project must not be empty');
  });

  it('takes a repeated --agent once', () => {
    expect(parseSourceFilters({ agent: ['codex', 'gemini', 'codex'] })).toEqual({ agents: ['codex', 'gemini'] });
  });
});

describe('sessionMatches', () => {
  it('keeps a session that overlaps the range, by its last write for --since and its start for --until', () => {
    const s = session({});
    expect(sessionMatches(s, parseSourceFilters({ since: '2026-02-12' }))).toBe(true);
    expect(sessionMatches(s, parseSourceFilters({ since: '2026-02-13' }))).toBe(false);
    expect(sessionMatches(s, parseSourceFilters({ until: '2026-02-10' }))).toBe(true);
    expect(sessionMatches(s, parseSourceFilters({ until: '2026-02-09' }))).toBe(false);
  });

  it('matches --project as a case-insensitive part of any recorded project, never a session that records none', () => {
    expect(sessionMatches(session({}), { project: 'TODO' })).toBe(true);
    expect(sessionMatches(session({ projects: ['-home-marco-projects-spotter', '/home/marco/projects/spotter'] }), { project: 'todo' })).toBe(false);
    expect(sessionMatches(session({ projects: [] }), { project: 'todo' })).toBe(false);
  });

  it('keeps only the agents asked for', () => {
    expect(sessionMatches(session({ agent: 'goose' }), { agents: ['codex'] })).toBe(false);
    expect(sessionMatches(session({ agent: 'codex' }), { agents: ['goose', 'codex'] })).toBe(true);
  });
});
