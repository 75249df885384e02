import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import { createProgress, createStatusLine, formatDuration, formatProgress } from '../../src/report/progress.js';
import { tempDir } from '../helpers/temp-dir.js';

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

describe('the status line of a long replay', () => {
  it('on a terminal, redraws the latest text with the time elapsed and clears it at the end; off one, writes nothing', async () => {
    const tty = sink(true);
    let clock = 0;
    const status = createStatusLine(tty, { ttyIntervalMs: 10, now: () => clock });
    await new Promise((r) => setTimeout(r, 30));
    expect(tty.writes).toEqual([]);
    status.set('simulate: 3 transcripts replayed');
    clock = 61_000;
    await new Promise((r) => setTimeout(r, 30));
    status.stop();
    expect(tty.writes.length).toBeGreaterThan(1);
    expect(tty.writes[0]).toBe('\r\x1b[2Ksimulate: 3 transcripts replayed, 1m01s');
    expect(tty.writes.at(-1)).toBe('\r\x1b[2K');

    const log = sink(false);
    const quiet = createStatusLine(log, { ttyIntervalMs: 5 });
    quiet.set('simulate: 3 transcripts replayed');
    await new Promise((r) => setTimeout(r, 20));
    quiet.stop();
    expect(log.writes).toEqual([]);
  });

  it('tune shows its passes on a terminal and leaves the line cleared', async () => {
    const chunks: string[] = [];
    const stderr = Object.assign(
      new Writable({
        write(chunk: Buffer | string, _encoding, done) {
          chunks.push(chunk.toString());
          done();
        },
      }),
      { isTTY: true },
    );
    const stdout = new Writable({ write: (_chunk, _encoding, done) => done() });
    const out = join(tempDir('tune-status'), 'tune');
    const args = ['tune', 'datasets/bundled/claude-code/subagent.jsonl', '--window', '20000', '--tokenizer', 'heuristic', '--out', out];
    expect(await main(args, { stdout, stderr })).toBe(0);
    const text = chunks.join('');
    expect(text.endsWith('\r\x1b[2K')).toBe(true);
    for (const line of text.split('\r\x1b[2K').filter((l) => l !== '')) {
      expect(line).toMatch(/^tune: (tool usage: \d+ transcripts read|\d+ settings: \d+ transcripts replayed|the exports: \d+ transcripts replayed), \d+s$/);
    }
  });
});
