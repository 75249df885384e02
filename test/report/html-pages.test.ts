/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumOrSkip, launchChromium } from '../../bench/lib/browser.js';
import { runMain } from '../helpers/cli-in-process.js';
import { LONG_SESSION, claudeCodeWithLongSessionHead } from '../helpers/long-session.js';
import { tempDir } from '../pipeline/helpers.js';

/**
 * The HTML reports in a real headless Chromium, on the bundled real transcripts: each page loads with no script error
 * and no request, draws every chart, shows the JSON report's headline numbers, and sorts its tables.
 * Screenshots go to TCOMPACT_ARTIFACTS when set; without it none is taken (no one would see it, and a full-page
 * screenshot costs Chromium more than the checks).
 */
const SUITE = 'HTML reports in headless Chromium';
const chromiumPath = chromiumOrSkip(SUITE);

const dir = tempDir('html');
const shots = process.env.TCOMPACT_ARTIFACTS ? join(process.env.TCOMPACT_ARTIFACTS, 'html-reports') : undefined;
const LONG_SESSION_LINES = 600;
const EVAL_SESSION_LINES = 1_500;

interface PageCase {
  name: string;
  html: string;
  json: string;
  minCharts: number;
}

const CASES: PageCase[] = [
  { name: 'run', html: join(dir, 'run', 'report.html'), json: join(dir, 'run', 'report.json'), minCharts: 5 },
  { name: 'compact', html: join(dir, 'c', 'out.report.html'), json: join(dir, 'c', 'out.report.json'), minCharts: 5 },
  { name: 'eval', html: join(dir, 'eval', 'eval.html'), json: join(dir, 'eval', 'eval.json'), minCharts: 3 },
  { name: 'simulate', html: join(dir, 'sim', 'simulate.html'), json: join(dir, 'sim', 'simulate.json'), minCharts: 4 },
  { name: 'stats', html: join(dir, 'stats.html'), json: join(dir, 'stats.json'), minCharts: 2 },
  { name: 'tune', html: join(dir, 'tune', 'tune.html'), json: join(dir, 'tune', 'tune.json'), minCharts: 1 },
];

/** What a page did while loading, and what it drew. */
interface Loaded {
  problems: string[];
  page: Page;
}

let browser: Browser;

async function open(file: string): Promise<Loaded> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`script error: ${e.message}`));
  page.on('request', (r) => {
    if (!r.url().startsWith('file:')) problems.push(`request: ${r.url()}`);
  });
  page.on('requestfailed', (r) => problems.push(`failed request: ${r.url()}`));
  await page.goto(`file://${file}`, { waitUntil: 'load' });
  return { problems, page };
}

function at(json: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], json);
}

describe.skipIf(chromiumPath === undefined)(SUITE, () => {
  beforeAll(async () => {
    if (shots) mkdirSync(shots, { recursive: true });
    mkdirSync(join(dir, 'c'));
    // Chromium starts while the commands write the pages.
    const launching = launchChromium(chromiumPath as string);
    // Simulate reads the long Claude Code session cut short (see longSessionHead): its page draws the same charts and tables.
    const claudeCode = claudeCodeWithLongSessionHead(join(dir, 'claude-code'), LONG_SESSION_LINES);
    // Every command in this process: the pages are what is tested here, and test/cli/ runs each command built.
    const runs: { code: number | null; stderr: string }[] = [
      await runMain(['run', 'datasets/bundled', '--out', join(dir, 'run'), '--quiet', '--workers', '1']),
      await runMain(['compact', 'datasets/bundled/tau-bench', 'datasets/bundled/swe-agent', '--out', join(dir, 'c', 'out.jsonl')]),
      // The long session up to just past its own compaction (its summary is line 1,482): the eval page draws the chart of
      // the source's summaries, which a shorter head leaves out, and scores several strategies in a table of its own.
      await runMain([
        'eval',
        join(claudeCodeWithLongSessionHead(join(dir, 'eval-input'), EVAL_SESSION_LINES, { alone: true }), `${LONG_SESSION}.jsonl`),
        '--out',
        join(dir, 'eval'),
      ]),
      await runMain(['simulate', claudeCode, '--out', join(dir, 'sim')]),
      // Two sessions that reach a 20,000-token window, so candidates clear and the frontier has points.
      await runMain([
        'tune',
        'datasets/bundled/claude-code/subagent.jsonl',
        'datasets/bundled/claude-code/tool_heavy.jsonl',
        '--window',
        '20000',
        '--tokenizer',
        'heuristic',
        '--out',
        join(dir, 'tune'),
        // One replay thread: the figures are the same for any number, and a second thread's start is all it would add.
        '--workers',
        '1',
      ]),
    ];
    const stats = await runMain(['stats', 'datasets/bundled', '--json', '--html', join(dir, 'stats.html')]);
    runs.push(stats);
    browser = await launching;
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    writeFileSync(join(dir, 'stats.json'), stats.stdout);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
  });

  for (const c of CASES) {
    it(`${c.name}: one file under 5 MB that loads with no script error and no request, draws every chart, shows the JSON's headline, and sorts a table by the numeric column clicked`, async () => {
      expect(statSync(c.html).size).toBeLessThan(5 * 1024 * 1024);
      const { problems, page } = await open(c.html);
      try {
        expect(problems).toEqual([]);
        const charts = await page.evaluate(() =>
          [...document.querySelectorAll('canvas')].map((canvas) => {
            const ctx = canvas.getContext('2d') as CanvasRenderingContext2D;
            const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
            let painted = 0;
            for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) painted++;
            return { id: canvas.id, width: canvas.width, height: canvas.height, painted };
          }),
        );
        expect(charts.length).toBeGreaterThanOrEqual(c.minCharts);
        expect(await page.getAttribute('html', 'data-charts')).toBe(String(charts.length));
        for (const chart of charts) {
          expect(chart.width * chart.height, chart.id).toBeGreaterThan(0);
          expect(chart.painted, `${chart.id} has drawn pixels`).toBeGreaterThan(500);
        }
        const json = JSON.parse(readFileSync(c.json, 'utf8')) as unknown;
        const headline = await page.$$eval('.kpi', (els) =>
          els.map((e) => ({ key: e.getAttribute('data-key') ?? '', value: Number(e.getAttribute('data-value')) })),
        );
        expect(headline.length).toBeGreaterThanOrEqual(2);
        for (const h of headline) expect(h.value, h.key).toBeCloseTo(at(json, h.key) as number, 6);
        if (shots) await page.screenshot({ path: join(shots, `${c.name}.png`), fullPage: true });

        // Clicking a numeric column header sorts the table's rows by it: a column whose rows are not in order yet, so
        // sorting must move them.
        const target = await page.evaluate(() => {
          const tables = [...document.querySelectorAll('table.sortable')];
          for (let t = 0; t < tables.length; t++) {
            const heads = [...tables[t].querySelectorAll('thead th')];
            for (let c = 0; c < heads.length; c++) {
              if (heads[c].getAttribute('data-sort-method') !== 'number') continue;
              const values = [...tables[t].querySelectorAll('tbody tr')].map((r) => Number(r.children[c].getAttribute('data-sort')));
              const ascending = values.every((v, i) => i === 0 || values[i - 1] <= v);
              const descending = values.every((v, i) => i === 0 || values[i - 1] >= v);
              if (!ascending && !descending) return { table: t, column: c };
            }
          }
          return null;
        });
        expect(target, 'a table with an unsorted numeric column').not.toBeNull();
        const { table, column } = target as { table: number; column: number };
        const read = () =>
          page.evaluate(
            ([t, c]) =>
              [...document.querySelectorAll('table.sortable')[t].querySelectorAll('tbody tr')].map((r) => ({
                key: r.children[0].textContent ?? '',
                value: Number(r.children[c].getAttribute('data-sort')),
              })),
            [table, column] as const,
          );
        const before = await read();
        await page.locator('table.sortable').nth(table).locator('thead th').nth(column).click();
        const first = await read();
        await page.locator('table.sortable').nth(table).locator('thead th').nth(column).click();
        const second = await read();
        for (const rows of [first, second]) expect(rows.map((r) => r.key).sort()).toEqual(before.map((r) => r.key).sort());
        const values = (rows: { value: number }[]) => rows.map((r) => r.value);
        expect([values(first), values(second)]).toContainEqual([...values(before)].sort((a, b) => b - a));
        expect([values(first), values(second)]).toContainEqual([...values(before)].sort((a, b) => a - b));
        expect(values(first)).not.toEqual(values(before));
      } finally {
        await page.close();
      }
    });
  }
});
