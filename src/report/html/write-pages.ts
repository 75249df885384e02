import { writeFileAtomic } from '../../io/atomic-file.js';
import { type Page, renderPage } from './page.js';
import { type StatsPageInput, statsPage } from './stats-page.js';

export const RUN_HTML = 'report.html';

/** Writes a page atomically; a failed write is E_IO with the path (see AtomicFile). */
export async function writePage(path: string, page: Page): Promise<string> {
  await writeFileAtomic(path, [renderPage(page)]);
  return path;
}

/** `stats --html FILE`. */
export async function writeStatsPage(path: string, stats: StatsPageInput): Promise<string> {
  return writePage(path, statsPage(stats));
}
