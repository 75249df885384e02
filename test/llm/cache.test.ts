import { mkdtempSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AnswerCache, cacheKey } from '../../src/llm/cache.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'tcompact-cache-'));
  dirs.push(d);
  return d;
}

describe('answer cache', () => {
  it('keys on canonical JSON: key order does not matter, any value does', () => {
    const a = cacheKey({ model: 'm', promptVersion: 'v1', params: { maxTokens: 10, temperature: 0 }, messages: [{ role: 'user', content: 'x' }] });
    const b = cacheKey({ messages: [{ content: 'x', role: 'user' }], params: { temperature: 0, maxTokens: 10 }, promptVersion: 'v1', model: 'm' });
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(cacheKey({ model: 'm', promptVersion: 'v2', params: { maxTokens: 10, temperature: 0 }, messages: [{ role: 'user', content: 'x' }] })).not.toBe(a);
    expect(cacheKey({ model: 'm', promptVersion: 'v1', params: { maxTokens: 10, temperature: 0 }, messages: [{ role: 'user', content: 'x ' }] })).not.toBe(a);
  });

  it('stores and reads back answers and rejections, leaving no temp file', async () => {
    const cache = new AnswerCache(tempDir());
    const key = cacheKey('q');
    expect(await cache.get(key)).toBeUndefined();
    expect(await cache.put(key, { text: 'summary', usage: { promptTokens: 5, completionTokens: 2 } })).toBeUndefined();
    expect(await cache.get(key)).toEqual({ text: 'summary', usage: { promptTokens: 5, completionTokens: 2 } });
    const other = cacheKey('r');
    await cache.put(other, { rejected: ['empty summary'] });
    expect(await cache.get(other)).toEqual({ rejected: ['empty summary'] });
    expect(readdirSync(join(cache.dir, key.slice(0, 2)))).toEqual([`${key}.json`]);
  });

  it('treats a corrupt entry as a miss and removes temp files a killed run left', async () => {
    const dir = tempDir();
    const cache = new AnswerCache(dir);
    const key = cacheKey('q');
    mkdirSync(join(dir, key.slice(0, 2)), { recursive: true });
    writeFileSync(join(dir, key.slice(0, 2), `${key}.json`), '{"text": "half a wri');
    writeFileSync(join(dir, key.slice(0, 2), `${key}.json.123.0.abcd.tmp`), '{"text"');
    expect(await cache.get(key)).toBeUndefined();
    expect(await cache.removeStaleTemps()).toBe(1);
    expect(readdirSync(join(dir, key.slice(0, 2)))).toEqual([`${key}.json`]);
  });

  it('reports a failed write instead of throwing', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'blocker'), '');
    const cache = new AnswerCache(join(dir, 'blocker'));
    const error = await cache.put(cacheKey('q'), { text: 't', usage: { promptTokens: 1, completionTokens: 1 } });
    expect(error).toMatch(/ENOTDIR|EEXIST/);
  });
});
