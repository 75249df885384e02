import { execFileSync } from 'node:child_process';
import { type Browser, chromium } from 'playwright-core';

/** The system Chromium (Debian package `chromium`), or CHROMIUM_PATH; undefined when there is none. */
export function findChromium(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  for (const name of ['chromium', 'chromium-browser']) {
    try {
      return execFileSync('which', [name], { encoding: 'utf8' }).trim() || undefined;
    } catch {
      // not on PATH
    }
  }
  return undefined;
}

/**
 * Whether the browser suites can run. Without Chromium they skip with a one-line notice, unless
 * TCOMPACT_REQUIRE_SERVICES=1 (set by .ci/run, which installs it) makes its absence a failure.
 */
export function chromiumOrSkip(suite: string): string | undefined {
  const path = findChromium();
  if (path !== undefined) return path;
  const message = `${suite} needs Chromium (Debian package \`chromium\`, or CHROMIUM_PATH)`;
  if (process.env.TCOMPACT_REQUIRE_SERVICES === '1') throw new Error(`${message}; TCOMPACT_REQUIRE_SERVICES=1 makes its absence a failure`);
  console.warn(`skipped: ${message}; apt-get install chromium to run it`);
  return undefined;
}

/** Headless Chromium through playwright-core (no browser download: the system executable). */
export function launchChromium(executablePath: string): Promise<Browser> {
  // --no-sandbox: CI and these machines run as root, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
}
