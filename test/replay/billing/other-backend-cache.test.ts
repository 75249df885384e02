import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readClaudeCode } from '../../../src/formats/claude-code.js';
import { defaultCacheModel } from '../../../src/replay/billing/cache-choice.js';
import { recordedUsage } from '../../../src/replay/billing/recorded-usage.js';
import { READ, collect, transcriptsOf } from '../../formats/helpers.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'claude-code');

async function cacheOf(name: string): Promise<string> {
  const [{ transcript }] = transcriptsOf(await collect(readClaudeCode(join(FIXTURES, name), READ)));
  return defaultCacheModel(transcript, recordedUsage(transcript));
}

describe('the cache of a Claude Code session, chosen from the model that answered', () => {
  it("bills a session a DeepSeek backend answered with a prefix cache that writes nothing, not Anthropic's", async () => {
    expect(await cacheOf('deepseek-backend.jsonl')).toBe('openai');
  });

  it("keeps Anthropic's for a session Claude answered", async () => {
    expect(await cacheOf('thinking-across-turns.jsonl')).toBe('anthropic-5m');
    expect(await cacheOf('inline-sidechain.jsonl')).toBe('anthropic-5m');
  });
});
