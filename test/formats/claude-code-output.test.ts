import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readClaudeCode } from '../../src/formats/claude-code.js';
import { isModelCall } from '../../src/model/recorded.js';
import { outputAsBilled, recordedUsage } from '../../src/replay/billing/recorded-usage.js';
import { countMessage, totalOf } from '../../src/tokens/breakdown.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { runMain } from '../helpers/cli-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';
import { READ, collect, transcriptsOf } from './helpers.js';

/** Four calls logged as Claude Code logs them: each reply's usage is its first stream event's (`stop_reason` null). */
const FILE = join(import.meta.dirname, '..', 'fixtures', 'claude-code', 'synthetic-replies.jsonl');
const tokenizer = getTokenizer('o200k_base');
const count = (m: Parameters<typeof countMessage>[0]) => totalOf(countMessage(m, tokenizer));

async function read(file: string) {
  const [{ transcript }] = transcriptsOf(await collect(readClaudeCode(file, READ)));
  return transcript;
}

describe('Claude Code output: recorded mid-stream, billed as the replies hold', () => {
  it("counts a mid-stream call's output from its reply, and keeps the recorded output as ccusage sums it", async () => {
    const t = await read(FILE);
    const calls = t.messages.filter(isModelCall);
    const output = outputAsBilled(t, count)!;
    expect(output.midStreamCalls).toBe(4);
    expect(output.recorded).toBe(40 + 60 + 30 + 25);
    expect(output.recorded).toBe(recordedUsage(t)?.output);
    expect(output.counted).toBe(calls.reduce((n, m) => n + count(m), 0));
  });

  it('takes the recorded output of a call logged with its stop_reason (the final usage)', async () => {
    const dir = tempDir('final-usage');
    const file = join(dir, 'final.jsonl');
    const lines = readFileSync(FILE, 'utf8').trimEnd().split('\n');
    const last = JSON.parse(lines[lines.length - 1]);
    last.message.stop_reason = 'end_turn';
    writeFileSync(file, `${[...lines.slice(0, -1), JSON.stringify(last)].join('\n')}\n`);
    const t = await read(file);
    const calls = t.messages.filter(isModelCall);
    const output = outputAsBilled(t, count)!;
    expect(output.midStreamCalls).toBe(3);
    expect(output.counted).toBe(calls.slice(0, 3).reduce((n, m) => n + count(m), 0) + 25);
  });

  it('is reported by stats, in simulate.json and in simulate.md beside the recorded output', async () => {
    const stats = await runMain(['stats', FILE, '--json']);
    expect(JSON.parse(stats.stdout).outputAsBilled).toEqual({ recorded: 155, counted: expect.any(Number), midStreamCalls: 4 });
    const out = tempDir('output-simulate');
    await runMain(['simulate', FILE, '--policy', 'none', '--out', out]);
    const [sim] = JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8')).perTranscript;
    expect(sim.recorded).toMatchObject({ output: 155, midStreamCalls: 4 });
    expect(sim.recorded.outputCounted).toBe(sim.policies.none.outputTokens);
    // simulate.md says both outputs and which one each cost uses.
    const md = readFileSync(join(out, 'simulate.md'), 'utf8');
    expect(md).toContain(`Output as billed: ${sim.recorded.outputCounted} tokens counted from the replies' content, against 155 recorded`);
    expect(md).toContain('mid-stream on 4 of 4 calls. The recorded costs above use the recorded output');
  });
});
