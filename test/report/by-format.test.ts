import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
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
