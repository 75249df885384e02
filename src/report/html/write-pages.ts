import { basename } from 'node:path';
import { TcompactError } from '../../errors.js';
import { writeFileAtomic } from '../../io/atomic-file.js';
import { headLines } from './head-lines.js';
import { type Page, renderPage } from './page.js';
import { type RunPageInput, runPage } from './run-page.js';
import { type StatsPageInput, statsPage } from './stats-page.js';
import type { TranscriptLinks } from './transcript-pages.js';

export const RUN_HTML = 'report.html';

/** Lines of errors.jsonl shown on the run and compact pages. */
const ERROR_LINES = 10;
/** Writes a page atomically; a failed write is E_IO with the path. */
export async function writePage(path: string, page: Page): Promise<string> {
  try {
    await writeFileAtomic(path, [renderPage(page)]);
  } catch (err) {
    throw new TcompactError('E_IO', `cannot write ${path}: ${(err as Error).message}`);
  }
  return path;
}

type Shared = Omit<RunPageInput, 'tool' | 'keys' | 'errors' | 'settings' | 'tokenizer' | 'tokens'>;

/** report.json of `run`, as far as the page reads it. */
type RunReportFields = Shared & { tokens: { before: number; after: number; saved: number; tokenizer: string } };

/** Where a run's page goes and the errors file it quotes: DIR/report.html for `run`, FILE.report.html for `compact`. */
interface RunPagePaths {
  html: string;
  errors: string;
}

/**
 * The page of a run or compact report, beside its report.json; `settings` are those that produced it, `links` the
 * run's pages of single transcripts (`tcompact view`).
 */
export async function writeRunPage(
  paths: RunPagePaths,
  tool: 'run' | 'compact',
  report: RunReportFields,
  settings: Record<string, unknown>,
  links?: TranscriptLinks,
): Promise<string> {
  const errors = { file: basename(paths.errors), head: await headLines(paths.errors, ERROR_LINES) };
  const input: RunPageInput = {
    ...report,
    tool,
    tokenizer: report.tokens.tokenizer,
    keys: { before: 'tokens.before', after: 'tokens.after', saved: 'tokens.saved' },
    errors,
    settings,
    ...(links && { links }),
  };
  return writePage(paths.html, runPage(input));
}

/** `stats --html FILE`. */
export async function writeStatsPage(path: string, stats: StatsPageInput): Promise<string> {
  return writePage(path, statsPage(stats));
}
