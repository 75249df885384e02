import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hindsightProbes, scoreHindsight } from '../../src/retention/hindsight.js';
import { viewOfMessages } from '../../src/retention/model-view.js';
import type { Message } from '../../src/model/message.js';
import { BUNDLED } from '../helpers/paths.js';
import { runMain } from '../helpers/cli-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';
import { corpusPath, hasCorpus } from '../helpers/corpus.js';

let n = 0;
const call = (name: string, args: Record<string, unknown>, result: string, isError = false): Message[] => {
  const id = `c${n++}`;
  return [
    { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] },
    { role: 'tool', tool_call_id: id, content: result, ...(isError ? { is_error: true } : {}) } as Message,
  ];
};
const user = (text: string): Message => ({ role: 'user', content: text });

describe('hindsight probes: what the session used again after a compaction point', () => {
  const before: Message[] = [
    user('Add retry logic to the payment client and keep the timeout at five seconds'),
    ...call('Read', { file_path: '/repo/src/client.ts' }, 'export class PaymentClient {}'),
    ...call('Read', { file_path: '/repo/src/unused.ts' }, 'export {}'),
    ...call('Bash', { command: 'npm test -- client' }, 'TypeError: retryPolicy is not a function', true),
    ...call('Bash', { command: 'git status' }, 'clean'),
  ];
  const after: Message[] = [
    user('No, I said keep the timeout at five seconds, not ten'),
    ...call('Edit', { file_path: '/repo/src/client.ts', old_string: 'a', new_string: 'b' }, 'ok'),
    { role: 'assistant', content: 'The retryPolicy import was wrong; fixing it.' },
    ...call('Bash', { command: 'npm test -- client' }, 'pass'),
  ];

  it('takes the path edited again, the command re-run, the error named again and the corrected request', () => {
    const probes = hindsightProbes(before, after);
    expect(probes.map((h) => [h.reason, h.probe.kind])).toEqual([
      ['path', 'artifact'],
      ['command', 'command'],
      ['error', 'error'],
      ['correction', 'intent'],
    ]);
    expect(probes[0].probe).toMatchObject({ path: '/repo/src/client.ts' });
    expect(probes[1].probe).toMatchObject({ command: 'npm test -- client' });
    expect(probes[2].probe).toMatchObject({ line: 'TypeError: retryPolicy is not a function' });
    expect(probes[3].probe).toMatchObject({ text: 'Add retry logic to the payment client and keep the timeout at five seconds' });
  });

  it('scores them under eval rules: a context that kept only the path and the request', () => {
    const kept: Message[] = [user('Add retry logic to the payment client and keep the timeout at five seconds'), user('Summary: edited /repo/src/client.ts')];
    const score = scoreHindsight(hindsightProbes(before, after), viewOfMessages(kept));
    expect(score.overall).toEqual({ probes: 4, retained: 2 });
    expect(score.byReason.path).toEqual({ probes: 1, retained: 1 });
    expect(score.byReason.command).toEqual({ probes: 1, retained: 0 });
    expect(score.byReason.correction).toEqual({ probes: 1, retained: 1 });
  });

  it('finds nothing when nothing before the point is used again', () => {
    expect(hindsightProbes(before, [user('Thanks, that is all'), { role: 'assistant', content: 'Done.' }])).toEqual([]);
  });
});

type Tally = { probes: number; retained: number };

async function hindsightAtPoints(input: string): Promise<{ at: (name: string) => Tally; md: string }> {
  const out = tempDir('sim-hindsight');
  const run = await runMain(['simulate', input, '--window', '200000', '--base-prompt', '26000', '--policy', 'source:checkpoint', '--out', out]);
  expect([run.code, run.stderr]).toEqual([0, '']);
  const json = JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8')) as {
    policies: { name: string; atSourcePoints?: { hindsight: { overall: Tally } } }[];
  };
  return {
    at: (name) => json.policies.find((p) => p.name === name)?.atSourcePoints?.hindsight.overall as Tally,
    md: readFileSync(join(out, 'simulate.md'), 'utf8'),
  };
}

describe('simulate reports hindsight recall at the source compaction points', { timeout: 120_000 }, () => {
  it('on the bundled session: the same probes for every policy at the point, in a hindsight column', async () => {
    const { at, md } = await hindsightAtPoints(join(BUNDLED, 'claude-code', 'ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl'));
    expect(at('source').probes).toBeGreaterThan(0);
    expect(at('source:checkpoint').probes).toBe(at('source').probes);
    expect(md).toContain('| hindsight |');
  });

  it.skipIf(!hasCorpus('hindsight on spotter'))("on spotter's sessions: Claude Code's own summaries keep fewer of them than checkpoint", async () => {
    const { at } = await hindsightAtPoints(corpusPath('spotter', 'files'));
    expect(at('source').probes).toBe(at('source:checkpoint').probes);
    expect(at('source').retained).toBeLessThan(at('source:checkpoint').retained);
  });
});

describe('eval reports hindsight recall beside the source own compaction', { timeout: 120_000 }, () => {
  it('on the bundled session: every row of the span has it, and the original keeps all of it', async () => {
    const out = tempDir('eval-hindsight');
    const session = join(BUNDLED, 'claude-code', 'ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl');
    const run = await runMain(['eval', session, '--strategy', 'checkpoint', '--out', out]);
    expect([run.code, run.stderr]).toEqual([0, '']);
    const json = JSON.parse(readFileSync(join(out, 'eval.json'), 'utf8')) as {
      rows: { name: string; hindsight?: unknown }[];
      reference: { spans: number; rows: { name: string; hindsight?: { overall: Tally } }[] };
    };
    expect(json.reference.spans).toBeGreaterThan(0);
    expect(json.reference.rows.map((r) => r.name)).toEqual(['original', 'claude-code summary', "checkpoint at the summary's size", 'checkpoint']);
    const original = json.reference.rows[0].hindsight?.overall as Tally;
    expect(original.probes).toBeGreaterThan(0);
    expect(original.retained).toBe(original.probes);
    for (const r of json.reference.rows) expect(r.hindsight?.overall.probes).toBe(original.probes);
    // The whole-transcript rows have no compaction point, hence no hindsight.
    expect(json.rows.every((r) => r.hindsight === undefined)).toBe(true);
    expect(readFileSync(join(out, 'eval.md'), 'utf8')).toContain('| strategy | paths again | commands re-run | errors referred to | corrections | hindsight |');
    expect(readFileSync(join(out, 'eval.html'), 'utf8')).toContain('facts needed again');
    // Span by span, the summary beside the checkpoint held to its size.
    const md = readFileSync(join(out, 'eval.md'), 'utf8');
    expect(md).toContain('| span | row | tokens before | tokens after | compression | kinds mean | facts needed again | of them paths |');
    expect(md).toMatch(/\| ae4a77f8 #0 \| checkpoint at the summary's size \| [\d,]+ \|/);
    expect(readFileSync(join(out, 'eval.html'), 'utf8')).toContain('of them paths');
  });
});

describe('simulate reports hindsight recall where a threshold policy compacts', { timeout: 120_000 }, () => {
  it('one point per compaction the policy made, none for the baseline, a hindsight column', async () => {
    const out = tempDir('sim-hindsight-policy');
    const session = join(BUNDLED, 'claude-code', 'ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl');
    const run = await runMain(['simulate', session, '--window', '100000', '--policy', 'seed-80-first3-last10', '--policy', 'mask-10', '--out', out]);
    expect([run.code, run.stderr]).toEqual([0, '']);
    type Row = { name: string; compactions: number; hindsight?: { points: number; overall: Tally } };
    const rows = (JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8')) as { policies: Row[] }).policies;
    const [none, seed, mask] = rows.filter((r) => r.name !== 'optimal');
    expect(none.hindsight).toBeUndefined();
    // Micro-compaction on every call is not a compaction point.
    expect(mask.hindsight).toBeUndefined();
    expect(seed.compactions).toBeGreaterThan(0);
    expect(seed.hindsight?.points).toBe(seed.compactions);
    expect(seed.hindsight?.overall.probes).toBeGreaterThan(0);
    expect(seed.hindsight?.overall.retained).toBeLessThanOrEqual(seed.hindsight?.overall.probes as number);
    expect(readFileSync(join(out, 'simulate.md'), 'utf8')).toMatch(/\| seed-80-first3-last10 \|.*\| \d+\.\d% \(\d+\/\d+\) \|/);
    expect(readFileSync(join(out, 'simulate.html'), 'utf8')).toContain('hindsight recall');
  });
});
