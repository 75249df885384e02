import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NO_PROJECT, formatGroups, projectGroups } from '../../src/report/groups.js';
import { runMain } from '../helpers/cli-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';

// Real bundled sessions of three agents: Claude Code, aider and SWE-agent.
const CLAUDE = 'datasets/bundled/claude-code/tool_heavy.jsonl';
const AIDER = 'datasets/bundled/aider';
const SWE = 'datasets/bundled/swe-agent';
const MIXED = [CLAUDE, AIDER, SWE];

interface StatsJson {
  transcripts: { file: string; tokens: number }[];
  total: { tokens: number };
  byFormat?: Record<string, { transcripts: number; tokens: number; calls: number; tokensPerCall: number; toolOutputShare: number }>;
}

const formatOfFile = (file: string) => (file.includes('/aider/') ? 'aider' : file.includes('/swe-agent/') ? 'swe-agent' : 'claude-code');

describe('Groups', () => {
  it('gives nothing for one named key, however many transcripts have none', () => {
    const groups = projectGroups(() => ({ n: 0 }));
    groups.of('/home/dev/app').n++;
    groups.of(undefined).n++;
    groups.of(undefined).n++;
    expect(groups.result()).toBeUndefined();
  });

  it('gives every group for two named keys or more: in key order, the transcripts without one last', () => {
    const groups = projectGroups(() => ({ n: 0 }));
    for (const key of ['/home/dev/web', undefined, '/home/dev/api', '/home/dev/web']) groups.of(key).n++;
    const result = groups.result();
    expect(Object.keys(result ?? {})).toEqual(['/home/dev/api', '/home/dev/web', NO_PROJECT]);
    expect(result?.['/home/dev/web']).toEqual({ n: 2 });
    expect(Object.keys(formatGroups(() => 0).result() ?? {})).toEqual([]);
  });
});

describe('reports across agents: grouped by source format when the inputs mix formats', () => {
  it('stats: per format, the transcripts and tokens of its files, and nothing added for one format', async () => {
    const mixed = await runMain(['stats', ...MIXED, '--json', '--tokenizer', 'heuristic']);
    expect(mixed.code).toBe(0);
    const s = JSON.parse(mixed.stdout) as StatsJson;
    expect(Object.keys(s.byFormat ?? {})).toEqual(['aider', 'claude-code', 'swe-agent']);
    for (const [format, f] of Object.entries(s.byFormat!)) {
      const mine = s.transcripts.filter((t) => formatOfFile(t.file) === format);
      expect(f.transcripts).toBe(mine.length);
      expect(f.tokens).toBe(mine.reduce((n, t) => n + t.tokens, 0));
      expect(f.tokensPerCall).toBeCloseTo(f.tokens / f.calls, 10);
      expect(f.toolOutputShare).toBeGreaterThan(0);
    }
    const one = JSON.parse((await runMain(['stats', AIDER, '--json', '--tokenizer', 'heuristic'])).stdout) as StatsJson;
    expect(one.byFormat).toBeUndefined();
    expect((await runMain(['stats', ...MIXED, '--tokenizer', 'heuristic'])).stdout).toContain('By source format:');
    const dir = tempDir('by-format-page');
    expect((await runMain(['stats', ...MIXED, '--tokenizer', 'heuristic', '--html', join(dir, 'stats.html')])).code).toBe(0);
    const page = readFileSync(join(dir, 'stats.html'), 'utf8');
    expect(page).toContain('By source format');
    for (const format of Object.keys(s.byFormat!)) expect(page).toContain(`>${format}<`);
  });

  it('simulate: each policy per format, summing to its totals; eval: each row per format, summing to its totals', async () => {
    const dir = tempDir('by-format');
    const sim = await runMain(['simulate', ...MIXED, '--out', join(dir, 'sim'), '--policy', 'default', '--tokenizer', 'heuristic', '--window', '20000']);
    expect(sim.code).toBe(0);
    const s = JSON.parse(readFileSync(join(dir, 'sim', 'simulate.json'), 'utf8')) as {
      transcripts: number;
      policies: { name: string; billedInput: number }[];
      byFormat: Record<string, { transcripts: number; policies: Record<string, { billedInput: number }> }>;
    };
    const groups = Object.values(s.byFormat);
    expect(Object.keys(s.byFormat)).toEqual(['aider', 'claude-code', 'swe-agent']);
    expect(groups.reduce((n, g) => n + g.transcripts, 0)).toBe(s.transcripts);
    for (const p of s.policies) expect(groups.reduce((n, g) => n + g.policies[p.name].billedInput, 0)).toBe(p.billedInput);
    expect(readFileSync(join(dir, 'sim', 'simulate.md'), 'utf8')).toContain('## By source format');
    expect(readFileSync(join(dir, 'sim', 'simulate.html'), 'utf8')).toContain('By source format');

    const ev = await runMain(['eval', ...MIXED, '--out', join(dir, 'eval'), '--strategy', 'auto', '--tokenizer', 'heuristic', '--window', '20000']);
    expect(ev.code).toBe(0);
    const e = JSON.parse(readFileSync(join(dir, 'eval', 'eval.json'), 'utf8')) as {
      rows: { name: string; tokensBefore: number; tokensAfter: number; score: { overall: { probes: number } } }[];
      byFormat: Record<string, { rows: { name: string; tokensBefore: number; tokensAfter: number; score: { overall: { probes: number } } }[] }>;
    };
    const evalGroups = Object.values(e.byFormat);
    expect(evalGroups).toHaveLength(3);
    expect(readFileSync(join(dir, 'eval', 'eval.md'), 'utf8')).toContain('By source format');
    expect(readFileSync(join(dir, 'eval', 'eval.html'), 'utf8')).toContain('By source format');
    for (const row of e.rows) {
      const parts = evalGroups.map((g) => g.rows.find((r) => r.name === row.name)!);
      expect(parts.reduce((n, r) => n + r.tokensAfter, 0)).toBe(row.tokensAfter);
      expect(parts.reduce((n, r) => n + r.score.overall.probes, 0)).toBe(row.score.overall.probes);
    }
  });
});

// Real bundled Claude Code sessions of two projects: spotter (three transcripts) and one of its worktrees (a session and
// its two subagents).
const TWO_PROJECTS = 'datasets/bundled/claude-code';
const SPOTTER = '/home/marco/projects/spotter';
const WORKTREE = '/home/USER/projects/spotter-worktrees/spotter-4te';

describe('reports across projects: grouped by project when the inputs hold two or more', () => {
  it('stats: per project, the transcripts and tokens of its sessions, those without one last; nothing added for one project', async () => {
    const r = await runMain(['stats', TWO_PROJECTS, AIDER, '--json', '--tokenizer', 'heuristic']);
    const s = JSON.parse(r.stdout) as StatsJson & { byProject?: StatsJson['byFormat'] };
    expect(Object.keys(s.byProject ?? {})).toEqual([WORKTREE, SPOTTER, '(no project)']);
    const ofProject = (file: string) => (file.includes('/aider/') ? '(no project)' : file.includes('ae4a77f8') ? WORKTREE : SPOTTER);
    for (const [project, p] of Object.entries(s.byProject!)) {
      const mine = s.transcripts.filter((t) => ofProject(t.file) === project);
      expect([p.transcripts, p.tokens]).toEqual([mine.length, mine.reduce((n, t) => n + t.tokens, 0)]);
    }
    const one = JSON.parse((await runMain(['stats', CLAUDE, AIDER, '--json', '--tokenizer', 'heuristic'])).stdout) as { byProject?: unknown };
    expect(one.byProject).toBeUndefined();
    expect((await runMain(['stats', TWO_PROJECTS, '--tokenizer', 'heuristic'])).stdout).toContain(`By project:\n\n| project |`);
    const dir = tempDir('by-project-page');
    expect((await runMain(['stats', TWO_PROJECTS, '--tokenizer', 'heuristic', '--html', join(dir, 'stats.html')])).code).toBe(0);
    expect(readFileSync(join(dir, 'stats.html'), 'utf8')).toContain(`>${SPOTTER}<`);
  });

  it('simulate, eval and run: per project, summing to their totals, in the JSON, the Markdown and the page', async () => {
    const dir = tempDir('by-project');
    const args = ['--tokenizer', 'heuristic', '--window', '20000'];
    expect((await runMain(['simulate', TWO_PROJECTS, '--out', join(dir, 'sim'), '--policy', 'default', ...args])).code).toBe(0);
    const s = JSON.parse(readFileSync(join(dir, 'sim', 'simulate.json'), 'utf8')) as {
      policies: { name: string; billedInput: number }[];
      byProject: Record<string, { transcripts: number; policies: Record<string, { billedInput: number }> }>;
    };
    expect(Object.fromEntries(Object.entries(s.byProject).map(([p, g]) => [p, g.transcripts]))).toEqual({ [WORKTREE]: 3, [SPOTTER]: 3 });
    for (const p of s.policies) expect(Object.values(s.byProject).reduce((n, g) => n + g.policies[p.name].billedInput, 0)).toBe(p.billedInput);
    expect(readFileSync(join(dir, 'sim', 'simulate.md'), 'utf8')).toContain(`## By project\n\nCost with caching`);
    expect(readFileSync(join(dir, 'sim', 'simulate.md'), 'utf8')).toContain(`| ${SPOTTER} (3) |`);
    expect(readFileSync(join(dir, 'sim', 'simulate.html'), 'utf8')).toContain('By project');

    expect((await runMain(['eval', TWO_PROJECTS, '--out', join(dir, 'eval'), '--strategy', 'auto', ...args])).code).toBe(0);
    const e = JSON.parse(readFileSync(join(dir, 'eval', 'eval.json'), 'utf8')) as {
      rows: { name: string; tokensAfter: number }[];
      byProject: Record<string, { transcripts: number; rows: { name: string; tokensAfter: number }[] }>;
    };
    expect(Object.keys(e.byProject)).toEqual([WORKTREE, SPOTTER]);
    for (const row of e.rows)
      expect(Object.values(e.byProject).reduce((n, g) => n + g.rows.find((r) => r.name === row.name)!.tokensAfter, 0)).toBe(row.tokensAfter);
    expect(readFileSync(join(dir, 'eval', 'eval.md'), 'utf8')).toContain(`| ${WORKTREE} (3) |`);
    expect(readFileSync(join(dir, 'eval', 'eval.html'), 'utf8')).toContain('By project');

    expect((await runMain(['run', TWO_PROJECTS, '--out', join(dir, 'run'), '--workers', '1', '--quiet', ...args])).code).toBe(0);
    const r = JSON.parse(readFileSync(join(dir, 'run', 'report.json'), 'utf8')) as {
      tokens: { before: number; after: number };
      byProject: Record<string, { transcripts: number; tokensBefore: number; tokensAfter: number; tokensSaved: number }>;
    };
    const projects = Object.values(r.byProject);
    expect(Object.keys(r.byProject)).toEqual([WORKTREE, SPOTTER]);
    expect([projects.reduce((n, p) => n + p.tokensBefore, 0), projects.reduce((n, p) => n + p.tokensAfter, 0)]).toEqual([r.tokens.before, r.tokens.after]);
    for (const p of projects) expect(p.tokensSaved).toBe(p.tokensBefore - p.tokensAfter);
    expect(readFileSync(join(dir, 'run', 'report.md'), 'utf8')).toMatch(new RegExp(`## By project\\n\\n\\| project +\\| transcripts \\|`));
    expect(readFileSync(join(dir, 'run', 'report.html'), 'utf8')).toContain('By project');
  });

  it('adds nothing to any report of one project', async () => {
    const dir = tempDir('one-project');
    const args = ['--tokenizer', 'heuristic', '--window', '20000'];
    await runMain(['simulate', CLAUDE, '--out', join(dir, 'sim'), '--policy', 'default', ...args]);
    await runMain(['eval', CLAUDE, '--out', join(dir, 'eval'), '--strategy', 'auto', ...args]);
    await runMain(['run', CLAUDE, '--out', join(dir, 'run'), '--workers', '1', '--quiet', ...args]);
    for (const file of ['sim/simulate.json', 'eval/eval.json', 'run/report.json']) expect(readFileSync(join(dir, file), 'utf8')).not.toContain('byProject');
    for (const file of ['sim/simulate.md', 'eval/eval.md', 'run/report.md', 'sim/simulate.html', 'eval/eval.html', 'run/report.html'])
      expect(readFileSync(join(dir, file), 'utf8')).not.toContain('By project');
  });
});
