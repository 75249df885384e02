import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readQwen } from '../../../src/formats/qwen.js';
import { defaultCacheModel } from '../../../src/replay/billing/cache-choice.js';
import { recordedUsage } from '../../../src/replay/billing/recorded-usage.js';
import { READ, collect, transcriptsOf } from '../../formats/helpers.js';
import { runMain } from '../../helpers/cli-in-process.js';
import { tempDir } from '../../helpers/temp-dir.js';

// The Qwen Code sessions of test/fixtures/qwen ran on Qwen OAuth (DashScope) with Qwen's own models.
const CHATS = join(import.meta.dirname, '..', '..', 'fixtures', 'qwen', 'projects', '-home-dev-projects-shop', 'chats');

/** The fixture sessions as if Qwen Code had run them on another OpenAI-compatible backend (an API key, DeepSeek's model). */
function onOtherBackend(): string {
  const dir = tempDir('qwen-other-backend'); // removed when the test ends
  for (const name of readdirSync(CHATS)) {
    const text = readFileSync(join(CHATS, name), 'utf8')
      .replace(/qwen3-coder-(plus|flash)/g, 'deepseek-chat')
      .replace(/qwen-oauth/g, 'openai');
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

async function cachesOf(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const [{ transcript }] = transcriptsOf(await collect(readQwen(join(dir, name), READ)));
    out.push(defaultCacheModel(transcript, recordedUsage(transcript)));
  }
  return out;
}

describe("the cache of a Qwen Code session, its backend's", () => {
  it("bills a session on DashScope (Qwen OAuth) with DashScope's explicit cache, whose rules are Anthropic's", async () => {
    expect(await cachesOf(CHATS)).toEqual(['anthropic-5m', 'anthropic-5m']);
  });

  it('bills a session another backend answered with a prefix cache that writes nothing, and its replay costs what the record does', async () => {
    const dir = onOtherBackend();
    expect(await cachesOf(dir)).toEqual(['openai', 'openai']);
    const out = join(tempDir('qwen-sim'), 'sim');
    const run = await runMain([
      'simulate',
      dir,
      '--policy',
      'source',
      '--window',
      '200000',
      '--base-prompt',
      'recorded',
      '--token-ratio',
      'recorded',
      '--out',
      out,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8')) as {
      perTranscript: { id: string; fidelity: { inputCost: { offBy: number }; cacheWrites: { replayed: number } } }[];
    };
    // Under Anthropic's cache (the default before) both were +19.7%: every prompt's new tail billed as a write.
    for (const t of report.perTranscript) {
      expect(t.fidelity.cacheWrites.replayed, t.id).toBe(0);
      expect(Math.abs(t.fidelity.inputCost.offBy), t.id).toBeLessThan(0.05);
    }
  });
});
