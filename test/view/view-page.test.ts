/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumOrSkip, launchChromium } from '../../bench/lib/browser.js';
import { transcriptPageName } from '../../src/report/html/transcript-pages.js';
import { runMain } from '../helpers/cli-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The pages of `tcompact view` in a real headless Chromium: the largest bundled Claude Code session (466 messages,
 * 0.5 MB) run with `auto`, audited by `eval --compacted`, then viewed. The page loads with no script error and no
 * request, shows the run's figures for the transcript, folds long texts, lets the browser skip what is off screen, and
 * the run page's table leads to it. Screenshots go to TCOMPACT_ARTIFACTS when set; without it none is taken (no one
 * would see it).
 */
const SUITE = 'tcompact view pages in headless Chromium';
const chromiumPath = chromiumOrSkip(SUITE);

const dir = tempDir('view-page');
const run = join(dir, 'run');
const evalDir = join(dir, 'eval');
const shots = process.env.TCOMPACT_ARTIFACTS ? join(process.env.TCOMPACT_ARTIFACTS, 'view-pages') : undefined;
const SESSION = 'ae4a77f8-aedd-4bc1-888f-c94edc91af04';
const page = join(run, 'view', transcriptPageName(SESSION));

let browser: Browser;
/** The transcript's page as loaded, shared by the tests that only read it (the 466-message page is slow to lay out). */
let unchanged: Promise<Loaded> | undefined;

interface Loaded {
  problems: string[];
  tab: Page;
}

async function open(file: string): Promise<Loaded> {
  const tab = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems: string[] = [];
  tab.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  tab.on('pageerror', (e) => problems.push(`script error: ${e.message}`));
  tab.on('request', (r) => {
    if (!r.url().startsWith('file:')) problems.push(`request: ${r.url()}`);
  });
  tab.on('requestfailed', (r) => problems.push(`failed request: ${r.url()}`));
  await tab.goto(`file://${file}`, { waitUntil: 'load' });
  return { problems, tab };
}

function openUnchanged(): Promise<Loaded> {
  unchanged ??= open(page);
  return unchanged;
}

describe.skipIf(chromiumPath === undefined)(SUITE, () => {
  beforeAll(async () => {
    if (shots) mkdirSync(shots, { recursive: true });
    // Chromium starts while the commands write the pages.
    const launching = launchChromium(chromiumPath as string);
    const input = `datasets/bundled/claude-code/${SESSION}.jsonl`;
    for (const args of [
      ['run', input, '--strategy', 'auto', '--out', run, '--quiet'],
      ['eval', '--compacted', run, '--out', evalDir],
      ['view', run, '--eval', evalDir],
    ]) {
      const r = await runMain(args);
      expect(r.code, `${args[0]}: ${r.stderr}`).toBe(0);
    }
    browser = await launching;
  }, 240_000);

  afterAll(async () => {
    if (unchanged !== undefined) await (await unchanged).tab.close();
    await browser?.close();
  });

  it("loads with no script error and no request, and shows the run's tokens before, after and saved for the transcript", async () => {
    const { problems, tab } = await openUnchanged();
    {
      expect(problems).toEqual([]);
      const report = JSON.parse(readFileSync(join(run, 'report.json'), 'utf8')) as {
        spread: { largest: { id: string; tokensBefore: number; tokensAfter: number }[] };
      };
      const entry = report.spread.largest.find((t) => t.id === SESSION);
      const kpi = async (key: string) => Number(await tab.getAttribute(`.kpi[data-key="${key}"]`, 'data-value'));
      expect(entry?.tokensAfter).toBeLessThan(entry?.tokensBefore ?? 0);
      expect(await kpi('tokensBefore')).toBe(entry?.tokensBefore);
      expect(await kpi('tokensAfter')).toBe(entry?.tokensAfter);
      expect(await kpi('tokensSaved')).toBe((entry?.tokensBefore ?? 0) - (entry?.tokensAfter ?? 0));
      // The rows' savings, as the page lists them, add up to the same figure.
      const rowsSaved = await tab.$$eval('section.changes table:has(caption) tbody tr', (trs) =>
        trs.reduce((n, tr) => n + Number(tr.children[6].getAttribute('data-sort')), 0),
      );
      expect(rowsSaved).toBe(await kpi('tokensSaved'));
      const lost = readFileSync(join(evalDir, 'lost.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as { transcript: string; strategy: string; compaction?: number })
        .filter((l) => l.transcript === SESSION);
      expect(await kpi('probesLost')).toBe(lost.filter((l) => l.strategy.startsWith('compacted') && l.compaction === undefined).length);
      expect(await tab.locator('.msg.lost, .msg.lost-other').count()).toBeGreaterThan(0);
      if (shots) await tab.screenshot({ path: join(shots, 'view-top.png') });
    }
  });

  it('is one file of a few scripts, folds long texts, and lets the browser skip the messages off screen', async () => {
    expect(statSync(page).size).toBeLessThan(5 * 1024 * 1024);
    const { problems, tab } = await openUnchanged();
    {
      expect(problems).toEqual([]);
      const shape = await tab.evaluate(() => {
        const open = [...document.querySelectorAll('.msg pre')].filter((pre) => pre.closest('details') === null);
        return {
          scripts: document.querySelectorAll('script').length,
          messages: document.querySelectorAll('.msg').length,
          folded: document.querySelectorAll('.msg details:not([open])').length,
          longestOpen: Math.max(...open.map((pre) => (pre.textContent ?? '').length)),
          visibility: getComputedStyle(document.querySelector('.msg') as Element).contentVisibility,
        };
      });
      expect(shape.scripts).toBeLessThanOrEqual(3);
      expect(shape.messages).toBeGreaterThan(466);
      expect(shape.folded).toBeGreaterThan(50);
      expect(shape.longestOpen).toBeLessThanOrEqual(1200);
      expect(shape.visibility).toBe('auto');
    }
  });

  it('shows only what changed on a click, side by side, the placeholder against the result it replaced', async () => {
    const { problems, tab } = await open(page);
    try {
      const kept = tab.locator('.row.kept').first();
      expect(await kept.isVisible()).toBe(true);
      await tab.check('#changed-only');
      expect(await kept.isVisible()).toBe(false);
      const replaced = tab.locator('.row.replaced').first();
      await replaced.scrollIntoViewIfNeeded();
      expect(await replaced.locator('.l .msg.tool').count()).toBe(1);
      expect(await replaced.locator('.r .piece').textContent()).toMatch(/^mask-observations.*saved [\d,]+ tokens.*ref [0-9a-f]{16}$/);
      expect(await replaced.locator('.r .msg pre').first().textContent()).toMatch(/^\[Previous: used \w+\] \(ref: [0-9a-f]{16}\)$/);
      await tab.evaluate(() => document.querySelector('section.flow')?.scrollIntoView());
      if (shots) await tab.screenshot({ path: join(shots, 'view-rows.png') });
      expect(problems).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it("leads from the run page's table of transcripts to the transcript's page", async () => {
    const { problems, tab } = await open(join(run, 'report.html'));
    try {
      await tab.click(`a:text-is("${SESSION}")`);
      await tab.waitForLoadState('load');
      expect(tab.url()).toBe(`file://${page}`);
      expect(await tab.textContent('h1')).toBe(SESSION);
      expect(problems).toEqual([]);
    } finally {
      await tab.close();
    }
  });
});
