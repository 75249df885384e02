import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { runPage } from '../src/pipeline/sink/run-page.js';
import { simulatePage, type SimulatePageInput } from '../src/replay/simulate-page.js';
import { type Page, renderPage } from '../src/report/html/page.js';
import { addToSpread, emptySpread } from '../src/report/transcript-spread.js';
import { evalPage, type EvalPageInput } from '../src/retention/eval-page.js';
import { type Breakdown, CATEGORIES, emptyBreakdown } from '../src/tokens/breakdown.js';
import { findChromium } from './lib/browser.js';
import type { Benchmark, BenchOutput, Cell, Ratio } from './lib/results.js';

const MAX_BYTES = 5_000_000;
const MAX_MS = 2000;

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296;
}

/** The run page of an archive of `n` transcripts (sizes drawn with a seed), as `run` would write it. */
function runReportPage(n: number): Page {
  const rand = seeded(1);
  const spread = emptySpread(200_000);
  let before = 0;
  let after = 0;
  for (let i = 0; i < n; i++) {
    const b = Math.floor(2000 + rand() ** 3 * 250_000);
    const a = Math.floor(b * (0.3 + 0.7 * rand()));
    before += b;
    after += a;
    addToSpread(spread, { id: `t${i}`, file: 'archive.jsonl', line: i + 1, tokensBefore: b, tokensAfter: a });
  }
  const byCategory = (total: number): Breakdown => {
    const b = emptyBreakdown();
    CATEGORIES.forEach((c, i) => (b[c] = Math.floor(total / (i + 2))));
    return b;
  };
  const strategies = ['sanitize', 'strip-reasoning', 'dedup-tools', 'mask-observations', 'checkpoint', 'truncate'].map((name, i) => ({
    name,
    runs: n,
    skipped: 0,
    tokensSaved: Math.floor((before - after) / 2 ** (i + 1)),
    messagesChanged: n * i,
    messagesRemoved: n,
  }));
  return runPage({
    tool: 'run',
    inputs: ['archive.jsonl'],
    transcripts: n,
    tokens: { before, after, saved: before - after, tokenizer: 'o200k_base' },
    lines: { read: n + 100, ok: n, failed: 100, skipped: 0 },
    messages: { before: n * 200, after: n * 150 },
    strategies,
    byCategory: { before: byCategory(before), after: byCategory(after) },
    spread,
    errorsByCode: { E_JSON: 60, E_SCHEMA: 40 },
    errors: {
      file: 'errors.jsonl',
      head: Array.from({ length: 10 }, (_, i) => JSON.stringify({ file: 'archive.jsonl', line: i, code: 'E_JSON', message: 'x'.repeat(200) })),
    },
    settings: { strategies: ['auto'], window: 200_000, workers: 2 },
  });
}

/** The eval page of `n` transcripts and five strategies (eval.json keeps every transcript; the page samples). */
function evalReportPage(n: number): Page {
  const rand = seeded(2);
  const names = ['original', 'auto', 'mask-observations', 'checkpoint', 'strip-tool-results', 'dedup-tools'];
  const tally = (probes: number) => ({ probes, retained: Math.floor(probes * (0.5 + rand() / 2)) });
  const row = (name: string) => {
    const byKind = { artifact: tally(1000), command: tally(2000), error: tally(300), intent: tally(400), task: tally(0) };
    const share = (t: { probes: number; retained: number }) => (t.probes === 0 ? null : t.retained / t.probes);
    return {
      name,
      tokensBefore: 1e9,
      tokensAfter: 5e8,
      score: { byKind, overall: tally(3700) },
      saved: rand(),
      recall: {
        artifact: share(byKind.artifact),
        command: share(byKind.command),
        error: share(byKind.error),
        intent: share(byKind.intent),
        task: share(byKind.task),
        overall: rand(),
      },
      kindsMean: rand(),
    };
  };
  const input: EvalPageInput = {
    inputs: ['archive.jsonl'],
    settings: { strategies: names.slice(1) },
    transcripts: n,
    probes: { artifact: 1000, command: 2000, error: 300, intent: 400, task: 0 },
    rows: names.map(row),
    perTranscript: Array.from({ length: n }, (_, i) => ({
      id: `t${i}`,
      tokensBefore: 10_000,
      rows: names.map((name) => ({ name, tokensAfter: Math.floor(10_000 * rand()), score: { overall: tally(40) } })),
    })),
    reference: { spans: 10, rows: ['original', 'claude-code summary', ...names.slice(1)].map(row) },
  };
  const lost = Array.from({ length: 50 }, (_, i) => ({
    transcript: `t${i}`,
    strategy: 'auto',
    probe: { kind: 'command' as const, command: 'x'.repeat(300), runs: 1, failed: true },
  }));
  return evalPage(input, lost);
}

/** The simulate page of `n` transcripts whose largest made `calls` model calls. */
function simulateReportPage(n: number, calls: number): Page {
  const names = ['none', 'mask-10', 'checkpoint-at-0.9', 'auto', 'seed-80-first3-last10', 'seed-200k-system-last-user'];
  const policies: SimulatePageInput['policies'][number][] = names.map((name, i) => ({
    name,
    summary: `policy ${name}`,
    calls: n * 40,
    billedInput: 1e10 / (i + 1),
    cachedInput: 9e9 / (i + 1),
    compactions: n * i,
    microCompactions: 0,
    peakPrompt: 190_000,
    callsOverHardLimit: i,
    callsOverWindow: 0,
    stuckTranscripts: i,
    reductionVsNone: i / 10,
    cost: { withoutCache: 30_000 / (i + 1), withCache: 4000 / (i + 1) },
  }));
  const prompts = Object.fromEntries(names.map((name, p) => [name, Array.from({ length: calls }, (_, c) => (c * 97 * (p + 1)) % 190_000)]));
  return simulatePage({
    inputs: ['archive.jsonl'],
    tokenizer: 'o200k_base',
    window: 200_000,
    thresholds: { compaction: 0.9 },
    transcripts: n,
    policies,
    trace: { id: 't0', file: 'archive.jsonl', line: 1, prompts },
  });
}

export const htmlReportBench: Benchmark = {
  name: 'html-report',
  entry: import.meta.url,
  title: 'HTML reports of a large archive: file size and time to render',
  description:
    'Builds the run, eval and simulate pages of a synthetic archive of 100,000 transcripts (the simulate trace: a transcript of 20,000 calls), ' +
    'writes them, and loads each in headless Chromium from file:// until every chart is drawn (load event; drawing is synchronous).',
  async run(ctx): Promise<BenchOutput> {
    const n = ctx.quick ? 20_000 : 100_000;
    const calls = ctx.quick ? 5_000 : 20_000;
    const pages: [string, Page][] = [
      ['run', runReportPage(n)],
      ['eval', evalReportPage(n)],
      ['simulate', simulateReportPage(n, calls)],
    ];
    const chromiumPath = findChromium();
    const results: { page: string; transcripts: number; bytes: number; renderMs: number | null; charts: number | null }[] = [];
    const browser = chromiumPath ? await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox', '--disable-gpu'] }) : undefined;
    try {
      for (const [name, page] of pages) {
        const file = join(ctx.tmpDir, `${name}.html`);
        writeFileSync(file, renderPage(page));
        let renderMs: number | null = null;
        let charts: number | null = null;
        if (browser) {
          const times: number[] = [];
          for (let i = 0; i < 3; i++) {
            const tab = await browser.newPage({ viewport: { width: 1280, height: 900 } });
            const started = performance.now();
            await tab.goto(`file://${file}`, { waitUntil: 'load' });
            times.push(performance.now() - started);
            charts = Number(await tab.getAttribute('html', 'data-charts'));
            await tab.close();
          }
          renderMs = Math.round(times.sort((a, b) => a - b)[1]);
        }
        results.push({ page: name, transcripts: n, bytes: statSync(file).size, renderMs, charts });
        ctx.log(`${name}: ${(statSync(file).size / 1e6).toFixed(2)} MB, ${renderMs ?? 'n/a'} ms`);
      }
    } finally {
      await browser?.close();
    }
    const rows: Cell[][] = results.map((r) => [r.page, r.transcripts, Number((r.bytes / 1e6).toFixed(2)), r.renderMs, r.charts]);
    const ratios: Ratio[] = results.flatMap((r) => [
      {
        name: `${r.page} page size (MB)`,
        value: Number((r.bytes / 1e6).toFixed(2)),
        target: `<= ${(MAX_BYTES / 1e6).toFixed(1)}`,
        unit: ' MB',
        met: r.bytes <= MAX_BYTES,
      },
      { name: `${r.page} page render (ms)`, value: r.renderMs, target: `<= ${MAX_MS}`, unit: ' ms', met: r.renderMs === null ? null : r.renderMs <= MAX_MS },
    ]);
    return {
      params: { transcripts: n, traceCalls: calls, chromium: chromiumPath ?? null },
      results,
      tables: [{ title: 'HTML report pages', columns: ['page', 'transcripts', 'MB', 'render ms (median of 3)', 'charts'], rows, headline: true }],
      ratios,
      pending: chromiumPath ? [] : ['render time: no Chromium on this machine (apt-get install chromium)'],
    };
  },
};
