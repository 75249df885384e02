import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'claude-code');
/** A PNG screenshot of 864x559 in a Read result: 864 x 559 / 750 = 644 tokens, where its base64 / 4 is 15,000. */
const TOOL_RESULT = join(FIXTURES, 'image-tool-result.jsonl');
/** A JPEG photo of 2400x1800 in a prompt, scaled to 1.2 megapixels (1264x948): 1,598 tokens, where its base64 / 4 is 50,000. */
const USER_MESSAGE = join(FIXTURES, 'image-user-message.jsonl');
const BILLED = { [TOOL_RESULT]: 644, [USER_MESSAGE]: 1598 };

interface StatsRow {
  file: string;
  tokens: number;
  byCategory: { attachments: number; assistant: number; overhead: number };
}

describe('images counted as the provider bills them, in every command', () => {
  it('stats: the attachments of each transcript are the images as billed', async () => {
    const result = await runMain(['stats', '--json', TOOL_RESULT, USER_MESSAGE]);
    expect(result.code).toBe(0);
    const rows = (JSON.parse(result.stdout) as { transcripts: StatsRow[] }).transcripts;
    expect(Object.fromEntries(rows.map((r) => [r.file, r.byCategory.attachments]))).toEqual(BILLED);
  });

  it("run: the report's token counts hold the images as billed", async () => {
    const out = tempDir('image-run');
    const result = await runMain(['run', TOOL_RESULT, USER_MESSAGE, '--out', out, '--workers', '1']);
    expect(result.code).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as { byCategory: { before: { attachments: number } } };
    expect(report.byCategory.before.attachments).toBe(644 + 1598);
  });

  it("simulate: the call after the screenshot's result sends its 644 tokens, not its base64", async () => {
    const stats = await runMain(['stats', '--json', TOOL_RESULT]);
    const [row] = (JSON.parse(stats.stdout) as { transcripts: StatsRow[] }).transcripts;
    const out = tempDir('image-simulate');
    const result = await runMain(['simulate', TOOL_RESULT, '--policy', 'none', '--out', out]);
    expect(result.code).toBe(0);
    const sim = JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8')) as { policies: { name: string; peakPrompt: number }[] };
    // The second call's prompt: the whole transcript but its last reply (26 tokens of text and 3 of framing).
    expect(sim.policies.find((p) => p.name === 'none')?.peakPrompt).toBe(row.tokens - 29);
    expect(row.tokens - 29).toBeLessThan(700);
  });
});
