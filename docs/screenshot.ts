/**
 * The README's screenshot: `tcompact run` on the bundled transcripts (what `npm start` runs), its report.html opened in
 * headless Chromium, the top of the page saved as docs/run-report.png.
 * Run: npm run build && node --import tsx docs/screenshot.ts
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findChromium, launchChromium } from '../bench/lib/browser.js';
import { CLI, ROOT } from '../bench/lib/paths.js';

const chromiumPath = findChromium();
if (chromiumPath === undefined) throw new Error('no Chromium: apt-get install chromium');
const dir = mkdtempSync(join(tmpdir(), 'tcompact-screenshot-'));
try {
  execFileSync(process.execPath, [CLI, 'run', 'datasets/bundled', '--out', join(dir, 'run'), '--quiet'], { cwd: ROOT, stdio: 'inherit' });
  const browser = await launchChromium(chromiumPath);
  const page = await browser.newPage({ viewport: { width: 1200, height: 1000 } });
  await page.goto(`file://${join(dir, 'run', 'report.html')}`, { waitUntil: 'load' });
  await page.screenshot({ path: join(ROOT, 'docs', 'run-report.png'), clip: { x: 0, y: 0, width: 1200, height: 1000 } });
  await browser.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
