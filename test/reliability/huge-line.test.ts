import { once } from 'node:events';
import { createWriteStream, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';
import { type ErrorLine, readJsonl, readReport, realArchiveLines, runCli, tempDir } from '../pipeline/helpers.js';

/** RELIABILITY 3: one 200 MB line is rejected by --max-line-bytes before any parse and never buffered whole. */
const dir = tempDir('huge-line');
const archive = join(dir, 'huge.jsonl');
const HUGE_BYTES = 200 * 1024 * 1024;

/** Streams the file: a real transcript, one 200 MB transcript line, another real transcript. */
async function writeHugeArchive(): Promise<{ hugeOffset: number }> {
  const [first, second] = (await realArchiveLines()).filter((l) => l.length < 10_000);
  const out = createWriteStream(archive);
  const write = async (chunk: string): Promise<void> => {
    if (!out.write(chunk)) await once(out, 'drain');
  };
  await write(`${first}\n`);
  const prefix = '{"id":"huge","messages":[{"role":"user","content":"';
  await write(prefix);
  const block = 'x'.repeat(1024 * 1024);
  for (let n = prefix.length; n < HUGE_BYTES; n += block.length) await write(block);
  await write(`"}]}\n${second}\n`);
  out.end();
  await once(out, 'close');
  return { hugeOffset: Buffer.byteLength(first) + 1 };
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a 200 MB line (RELIABILITY 3)', () => {
  it('is E_LINE_TOO_LONG under the default 64 MiB limit, the other lines are compacted, and peak RSS stays bounded', async () => {
    const { hugeOffset } = await writeHugeArchive();
    const out = join(dir, 'out');
    const preload = join(ROOT, 'test/reliability/rss-preload.mjs');
    const result = await runCli(['run', archive, '--out', out, '--workers', '1', '--quiet'], { nodeArgs: ['--import', preload] });
    expect(result.code).toBe(1);
    const errors = readJsonl<ErrorLine>(join(out, 'errors.jsonl'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ line: 2, byteOffset: hugeOffset, code: 'E_LINE_TOO_LONG' });
    expect(errors[0].message).toMatch(/over --max-line-bytes 67108864/);
    expect(readReport(out).lines).toEqual({ read: 3, ok: 2, failed: 1, skipped: 0 });
    const peakMb = Number(/peak-rss-kb (\d+)/.exec(result.stderr)?.[1]) / 1024;
    console.log(`RELIABILITY 3: peak RSS ${peakMb.toFixed(0)} MB for a ${HUGE_BYTES / 1024 / 1024} MB line (main thread + 1 worker)`);
    // Buffering the line whole would take 200 MB of bytes plus the decoded string on top of the ~200 MB baseline.
    expect(peakMb).toBeLessThan(350);
  });
});
