import { describe, expect, it } from 'vitest';
import { createProgress, formatDuration, formatProgress } from '../../src/report/progress.js';

const snapshot = { bytesDone: 3_200_000, bytesTotal: 10_000_000, transcripts: 12, tokensSaved: 1234, errors: 0 };

function sink(isTTY: boolean) {
  const writes: string[] = [];
  return { isTTY, writes, write: (s: string) => writes.push(s) };
}

describe('progress', () => {
  it('formats transcripts, MB done, rate, ETA, tokens saved and errors', () => {
    expect(formatProgress(snapshot, 2000)).toBe('12 transcripts, 3.2/10.0 MB (32%), 1.6 MB/s, ETA 4s, 1,234 tokens saved, 0 errors');
    expect(formatProgress({ ...snapshot, bytesDone: 0, bytesTotal: 0 }, 0)).toBe(
      '12 transcripts, 0.0/0.0 MB (0%), 0.0 MB/s, ETA ?, 1,234 tokens saved, 0 errors',
    );
    expect([formatDuration(59), formatDuration(61), formatDuration(3700)]).toEqual(['59s', '1m01s', '1h01m']);
  });

  it('off a terminal, writes a plain line per interval only when something changed', async () => {
    const out = sink(false);
    const progress = createProgress(out, { logIntervalMs: 20, now: () => 0 });
    progress.update(snapshot);
    await new Promise((r) => setTimeout(r, 70));
    progress.stop();
    expect(out.writes).toEqual(['12 transcripts, 3.2/10.0 MB (32%), 0.0 MB/s, ETA ?, 1,234 tokens saved, 0 errors\n']);
  });

  it('on a terminal, redraws one line in place and clears it at the end', async () => {
    const out = sink(true);
    const progress = createProgress(out, { ttyIntervalMs: 10 });
    progress.update(snapshot);
    await new Promise((r) => setTimeout(r, 40));
    progress.stop();
    expect(out.writes.length).toBeGreaterThan(1);
    expect(out.writes.every((w) => w.startsWith('\r\x1b[2K'))).toBe(true);
    expect(out.writes.at(-1)).toBe('\r\x1b[2K');
  });

  it('writes nothing with quiet', async () => {
    const out = sink(true);
    const progress = createProgress(out, { quiet: true, ttyIntervalMs: 5 });
    progress.update(snapshot);
    await new Promise((r) => setTimeout(r, 20));
    progress.stop();
    expect(out.writes).toEqual([]);
  });
});
