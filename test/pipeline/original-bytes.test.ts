import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/pipeline/run-pipeline.js';
import { parseCompactConfig } from '../../src/strategies/compact-config.js';
import { accounting, readJsonl, readReport, realLines, tempDir } from './helpers.js';

/**
 * A canonical transcript that compaction leaves unchanged is written out as its input line's own text, not
 * serialized again: the line below is valid canonical JSON that JSON.stringify would write differently (spaces, an
 * escaped `é`, `\/`, a number written `1.0`), so the output shows which of the two was written.
 */
const dir = tempDir('original-bytes');
const archive = join(dir, 'archive.jsonl');
const config = parseCompactConfig({ strategies: ['strip-reasoning'], keepLast: 1, keepMessages: 0, keepResults: 0 });

const UNCHANGED = '{ "id" : "spaced", "messages" : [ { "role" : "user", "content" : "caf\\u00e9 at a\\/b" } ], "metadata" : { "v" : 1.0 } }';
const CHANGED = JSON.stringify({
  id: 'reasoned',
  messages: [
    { role: 'user', content: 'why?' },
    { role: 'assistant', content: 'because', reasoning_content: 'long private reasoning that strip-reasoning removes' },
    { role: 'user', content: 'and then?' },
    { role: 'assistant', content: 'done' },
  ],
});
let real: string[];
let input: string[];

beforeAll(async () => {
  real = await realLines({ count: 6, maxLineBytes: 49_999 });
  input = [UNCHANGED, CHANGED, '{"id": "broken"', ...real, `${UNCHANGED.replace('spaced', 'crlf')}\r`];
  writeFileSync(archive, input.map((l) => `${l}\n`).join(''));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(workers: number): Promise<string> {
  const out = join(dir, `out-${workers}`);
  const outcome = await runPipeline({ inputs: [archive], outDir: out, config, workers, shardBytes: 2048 });
  expect(outcome.status).toBe('done');
  return out;
}

describe('unchanged canonical transcripts', () => {
  it('are written as their input text, changed ones re-serialized, each input line in exactly one place, for 1 or 2 workers', async () => {
    const one = await run(1);
    const two = await run(2);
    const transcripts = readFileSync(join(one, 'transcripts.jsonl'), 'utf8');
    expect(readFileSync(join(two, 'transcripts.jsonl'), 'utf8')).toBe(transcripts);
    const lines = transcripts.split('\n').slice(0, -1);
    // Input order, the bad line left out; the CRLF line loses only its `\r`.
    expect(lines[0]).toBe(UNCHANGED);
    expect(lines[0]).not.toBe(JSON.stringify(JSON.parse(UNCHANGED)));
    expect(JSON.parse(lines[1]).messages[1].reasoning_content).toBeUndefined();
    expect(lines.at(-1)).toBe(UNCHANGED.replace('spaced', 'crlf'));
    expect(lines.map((l) => JSON.parse(l).id)).toEqual(['spaced', 'reasoned', ...real.map((l) => JSON.parse(l).id), 'crlf']);
    // Real archive lines are JSON.stringify output already: unchanged or not, each reads back as its compaction.
    for (const [i, line] of real.entries()) expect(JSON.parse(lines[2 + i]).id).toBe(JSON.parse(line).id);
    const report = readReport(one);
    expect(report.lines).toEqual({ read: input.length, ok: input.length - 1, failed: 1, skipped: 0 });
    expect(accounting(one)).toEqual({ identity: true, transcriptsOut: input.length - 1, errorLines: 1 });
    expect(readJsonl<{ line: number; code: string }>(join(one, 'errors.jsonl'))).toMatchObject([{ line: 3, code: 'E_JSON' }]);
  });
});
