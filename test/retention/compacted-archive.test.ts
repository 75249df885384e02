import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatRefLine, parseRefLine } from '../../src/refs/ref-file.js';
import { runMain } from '../helpers/cli-in-process.js';
import { BUNDLED, tempDir } from '../pipeline/helpers.js';

/**
 * `eval --compacted DIR` audits the output of a `run` after the fact: each compacted transcript is scored
 * against its original, restored from the side store. The cross-check: the same strategy scored by `eval` itself on
 * the same inputs must give the same figures, row for row and transcript for transcript.
 */
const INPUTS = [join(BUNDLED, 'claude-code'), join(BUNDLED, 'swe-agent')];

interface Row {
  name: string;
  tokensBefore: number;
  tokensAfter: number;
  score: unknown;
}
interface EvalJson {
  transcripts: number;
  rows: Row[];
  perTranscript: { id: string; rows: { name: string; tokensAfter: number; score: unknown }[] }[];
  reference: { spans: number };
  errors: number;
}
interface Lost {
  transcript: string;
  strategy: string;
  compaction?: number;
  probe: unknown;
}

const readEval = (dir: string): EvalJson => JSON.parse(readFileSync(join(dir, 'eval.json'), 'utf8')) as EvalJson;
const readLost = (dir: string): Lost[] =>
  readFileSync(join(dir, 'lost.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Lost);

describe('eval --compacted', () => {
  it('scores a run output like eval scores the same strategy: same tokens, same recall, same lost probes', async () => {
    const dir = tempDir('eval-compacted');
    const steps = ['dedup-tools', 'mask-observations', 'checkpoint'];
    const strategy = steps.join('+');
    const run = await runMain(['run', ...INPUTS, ...steps.flatMap((s) => ['--strategy', s]), '--keep-last', '0', '--out', join(dir, 'run')]);
    expect(run.code).toBe(0);
    const audit = await runMain(['eval', '--compacted', join(dir, 'run'), '--out', join(dir, 'audit'), '--keep-last', '0']);
    expect(audit.stderr).toBe('');
    expect(audit.code).toBe(0);
    const direct = await runMain(['eval', ...INPUTS, '--strategy', strategy, '--keep-last', '0', '--out', join(dir, 'direct')]);
    expect(direct.code).toBe(0);

    const a = readEval(join(dir, 'audit'));
    const d = readEval(join(dir, 'direct'));
    const row = `compacted: ${strategy}`;
    expect(a.rows.map((r) => r.name)).toEqual(['original', row]);
    expect(a.transcripts).toBe(d.transcripts);
    expect(a.transcripts).toBeGreaterThan(5);
    // The strategy really compacted and really lost probes, so equal figures are not equal zeros.
    expect(d.rows[1].tokensAfter).toBeLessThan(d.rows[1].tokensBefore);
    const { name: _a, ...auditRow } = a.rows[1];
    const { name: _d, ...directRow } = d.rows[1];
    expect(auditRow).toEqual(directRow);
    expect(a.rows[0]).toEqual(d.rows[0]);
    expect(a.perTranscript.map((t) => [t.id, t.rows[1].tokensAfter, t.rows[1].score])).toEqual(
      d.perTranscript.map((t) => [t.id, t.rows[1].tokensAfter, t.rows[1].score]),
    );
    // The source's own compactions are scored on the restored originals too.
    expect(a.reference.spans).toBe(d.reference.spans);
    const lostAudit = readLost(join(dir, 'audit')).filter((l) => l.compaction === undefined);
    const lostDirect = readLost(join(dir, 'direct')).filter((l) => l.compaction === undefined && l.strategy === strategy);
    expect(lostDirect.length).toBeGreaterThan(0);
    expect(lostAudit.map((l) => l.strategy)).toEqual(lostAudit.map(() => row));
    expect(lostAudit.map((l) => [l.transcript, l.probe])).toEqual(lostDirect.map((l) => [l.transcript, l.probe]));
  });

  it('reports a transcript whose side-store entries were altered as E_REF, scores the others, and exits 1', async () => {
    const dir = tempDir('eval-compacted-ref');
    // The small Claude Code sessions (the long one would only slow it down).
    const input = ['short.jsonl', 'tool_heavy.jsonl', 'subagent.jsonl'].map((f) => join(BUNDLED, 'claude-code', f));
    expect((await runMain(['run', ...input, '--strategy', 'checkpoint', '--keep-last', '0', '--out', join(dir, 'run')])).code).toBe(0);
    const refsPath = join(dir, 'run', 'refs.jsonl');
    const refs = readFileSync(refsPath, 'utf8').split('\n');
    // Alter the restore recipe of the first compacted transcript: it no longer hashes to its ref.
    const recipe = /"restore":"([0-9a-f]+)"/.exec(readFileSync(join(dir, 'run', 'transcripts.jsonl'), 'utf8'))?.[1];
    const at = refs.findIndex((l) => l.startsWith(`{"ref":"${recipe}"`));
    expect(at).toBeGreaterThanOrEqual(0);
    const entry = parseRefLine(refs[at]);
    if (!('data' in entry)) throw new Error('a restore recipe is stored as data');
    refs[at] = formatRefLine(entry.ref, `${entry.data} `).trimEnd();
    writeFileSync(refsPath, refs.join('\n'));
    const audit = await runMain(['eval', '--compacted', join(dir, 'run'), '--out', join(dir, 'audit')]);
    expect(audit.code).toBe(1);
    expect(audit.stderr).toMatch(/transcripts\.jsonl:\d+: E_REF: transcript "[^"]+": /);
    const json = readEval(join(dir, 'audit'));
    const run = JSON.parse(readFileSync(join(dir, 'run', 'report.json'), 'utf8')) as { transcripts: number };
    expect(json.errors).toBe(1);
    expect(json.transcripts).toBe(run.transcripts - 1);
  });

  it('refuses inputs beside --compacted, and a directory that is not a compacted archive', async () => {
    const dir = tempDir('eval-compacted-usage');
    const both = await runMain(['eval', join(BUNDLED, 'claude-code'), '--compacted', dir, '--out', join(dir, 'x')]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('eval: give either inputs or --compacted PATH, not both');
    const empty = await runMain(['eval', '--compacted', dir, '--out', join(dir, 'x')]);
    expect(empty.code).toBe(74);
    expect(empty.stderr).toContain(`${join(dir, 'transcripts.jsonl')} does not exist`);
  });
});
