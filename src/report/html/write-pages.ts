import { TcompactError } from '../../errors.js';
import { writeFileAtomic } from '../../io/atomic-file.js';
import { type Page, renderPage } from './page.js';
import { type StatsPageInput, statsPage } from './stats-page.js';

export const RUN_HTML = 'report.html';

/** Writes a page atomically; a failed write is E_IO with the path. */
export async function writePage(path: string, page: Page): Promise<string> {
  try {
    await writeFileAtomic(path, [renderPage(page)]);
  } catch (err) {
    throw new TcompactError('E_IO', `cannot write ${path}: ${(err as Error).message}`);
  }
  return path;
}

/** `stats --html FILE`. */
export async function writeStatsPage(path: string, stats: StatsPageInput): Promise<string> {
  return writePage(path, statsPage(stats));
}
