/// <reference lib="dom" />
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumOrSkip, launchChromium } from '../../bench/lib/browser.js';
import { runMain } from '../helpers/cli-in-process.js';
import { writeSecretCorpus } from '../helpers/secret-transcripts.js';
import { tempDir } from '../pipeline/helpers.js';

/**
 * Every page run, view, eval, stats, simulate and tune write, in headless Chromium, on made-up transcripts with an HTML
 * payload in every field a page shows (transcript and tool-call ids, tool names, arguments, results, user text, model
 * names, the project folder) and planted secrets: no script of the payload runs and no request leaves the page.
 */
const SUITE = 'pages with HTML payloads in headless Chromium';
const chromiumPath = chromiumOrSkip(SUITE);
const dir = tempDir('payload-pages');
const out = join(dir, 'out');

/** Each piece would run a script or make a request to a host that does not exist if it reached the page unescaped. */
const PAYLOAD = [
  `"'><script>window.__xss=(window.__xss||0)+1</script>`,
  `<img src="https://payload.invalid/i.png" onerror="window.__xss=(window.__xss||0)+1">`,
  `<svg onload="window.__xss=(window.__xss||0)+1"></svg>`,
  `<a id="jsl" href="javascript:window.__xss=(window.__xss||0)+1">x</a>`,
  '</textarea></pre></code><iframe src="https://payload.invalid/f"></iframe>',
].join('');

function pagesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return pagesUnder(path);
    return path.endsWith('.html') ? [path] : [];
  });
}

let browser: Browser;

describe.skipIf(chromiumPath === undefined)(SUITE, () => {
  beforeAll(async () => {
    const corpus = writeSecretCorpus(join(dir, 'in'), PAYLOAD);
    const inputs = [corpus.archive, join(corpus.dir, 'claude-code')];
    const run = join(out, 'run');
    // Chromium starts while the commands write the pages.
    const launching = launchChromium(chromiumPath as string);
    const runs = [
      await runMain(['run', ...inputs, '--out', run, '--quiet', '--workers', '1']),
      await runMain(['eval', '--compacted', run, '--out', join(out, 'eval')]),
    ];
    runs.push(
      await runMain(['view', run, '--eval', join(out, 'eval')]),
      await runMain(['stats', ...inputs, '--html', join(out, 'stats.html')]),
      await runMain(['simulate', ...inputs, '--out', join(out, 'simulate')]),
      // One replay thread: the figures are the same for any number, and a second thread's start is all it would add here.
      await runMain(['tune', ...inputs, '--window', '20000', '--out', join(out, 'tune'), '--workers', '1']),
    );
    browser = await launching;
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('loads every page with no script of the payload run, no dialog and no request off the page', async () => {
    const pages = pagesUnder(out);
    // report.html, eval.html, three view pages, stats.html, simulate.html, tune.html.
    expect(pages.length).toBeGreaterThanOrEqual(8);
    // One tab visits every page: each navigation starts a fresh window (so `__xss` counts that page alone), and the
    // problems seen are reset before each visit.
    const page = await browser.newPage();
    let problems: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith('file:')) problems.push(`request: ${r.url()}`);
    });
    page.on('dialog', (d) => problems.push(`dialog: ${d.message()}`));
    page.on('pageerror', (e) => problems.push(`script error: ${e.message}`));
    try {
      for (const file of pages) {
        problems = [];
        await page.goto(`file://${file}`, { waitUntil: 'load' });
        // A link to `javascript:` would run on click: none may exist, whatever its text.
        const schemes = await page.$$eval('a[href]', (as) => as.map((a) => a.getAttribute('href') ?? '').filter((h) => /^[a-z][a-z0-9+.-]*:/i.test(h)));
        const ran = await page.evaluate(() => (window as unknown as { __xss?: number }).__xss ?? 0);
        const shown = await page.evaluate(() => document.body.textContent ?? '');
        expect({ page: relative(out, file), problems, ran, schemes }).toEqual({ page: relative(out, file), problems: [], ran: 0, schemes: [] });
        // The payload is shown as text wherever a page shows a field (the run page lists transcript ids).
        if (file.endsWith('report.html') || file.includes('/view/')) expect(shown, relative(out, file)).toContain('<script>window.__xss');
      }
    } finally {
      await page.close();
    }
  });
});
