import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BpeCounter } from '../../src/tokens/bpe-count.js';
import { bpeCounter } from '../../src/tokens/bpe-engines.js';
import { readRankFile, writeRankFile } from '../../src/tokens/rank-file.js';
import { buildRankTable } from '../../src/tokens/rank-table.js';
import { bundledTranscripts } from '../helpers/bundled-transcripts.js';
import { tempDir } from '../helpers/temp-dir.js';

const require = createRequire(import.meta.url);

describe('the rank file the build writes', () => {
  it('reads back a table that counts as gpt-tokenizer, and is refused when of another encoding, version or size', async () => {
    const ranks = require('gpt-tokenizer/cjs/bpeRanks/o200k_base') as { default: (string | number[])[] };
    const built = buildRankTable(ranks.default);
    const path = join(tempDir('rank-file'), 'o200k_base.ranks');
    writeRankFile(path, 'o200k_base', built);
    const read = readRankFile(path, 'o200k_base');
    expect(read).toBeDefined();
    expect(Buffer.from(new Uint8Array(read!.shared.buffer)).equals(Buffer.from(new Uint8Array(built.shared.buffer)))).toBe(true);

    const fromFile = new BpeCounter(read!, null);
    const reference = bpeCounter('o200k_base', 'gpt-tokenizer');
    // gpt-tokenizer is slow: 400 messages of every bundled source here; engine-parity.test.ts compares them all.
    const texts = (await bundledTranscripts()).flatMap((t) => t.messages.slice(0, 8).map((m) => JSON.stringify(m.content ?? '')));
    expect(texts.length).toBeGreaterThan(300);
    for (const text of texts) expect(fromFile.count(text)).toBe(reference(text));

    expect(readRankFile(path, 'cl100k_base')).toBeUndefined();
    expect(readRankFile(join(tempDir('rank-file'), 'none.ranks'), 'o200k_base')).toBeUndefined();
    const file = readFileSync(path);
    const newline = file.indexOf(10);
    const header = JSON.parse(file.subarray(0, newline).toString('utf8')) as Record<string, unknown>;
    writeFileSync(path, Buffer.concat([Buffer.from(`${JSON.stringify({ ...header, gptTokenizer: '0.0.1' })}\n`), file.subarray(newline + 1)]));
    expect(readRankFile(path, 'o200k_base')).toBeUndefined();
    writeFileSync(path, file.subarray(0, file.length - 1));
    expect(readRankFile(path, 'o200k_base')).toBeUndefined();
  });
});
