import { basename, join } from 'node:path';
import { TcompactError } from '../../errors.js';
import { writeFileAtomic } from '../../io/atomic-file.js';
import { type EvalPageInput, type LostProbeLine, evalPage } from './eval-page.js';
import { headLines } from './head-lines.js';
import { type Page, renderPage } from './page.js';
import { type RunPageInput, runPage } from './run-page.js';
import { type SimulatePageInput, simulatePage } from './simulate-page.js';
import { type StatsPageInput, statsPage } from './stats-page.js';

export const RUN_HTML = 'report.html';
export const EVAL_HTML = 'eval.html';
export const SIMULATE_HTML = 'simulate.html';

/** Lines of errors.jsonl shown on the run and compact pages. */
const ERROR_LINES = 10;
/** Lost probes listed on the eval page. */
const LOST_LISTED = 50;

async function writePage(path: string, page: Page): Promise<string> {
  try {
    await writeFileAtomic(path, [renderPage(page)]);
  } catch (err) {
    throw new TcompactError('E_IO', `cannot write ${path}: ${(err as Error).message}`);
  }
  return path;
}

type Shared = Omit<RunPageInput, 'tool' | 'keys' | 'errors' | 'settings' | 'tokenizer' | 'tokens'>;

/** report.json of `run`, as far as the page reads it. */
export type RunReportFields = Shared & { tokens: { before: number; after: number; saved: number; tokenizer: string } };

/** DIR/report.html beside report.json; `settings` are the run's (strategies, window, workers...). */
export async function writeRunPage(outDir: string, report: RunReportFields, settings: Record<string, unknown>): Promise<string> {
  const errors = { file: 'errors.jsonl', head: await headLines(join(outDir, 'errors.jsonl'), ERROR_LINES) };
  const input: RunPageInput = {
    ...report,
    tool: 'run',
    tokenizer: report.tokens.tokenizer,
    keys: { before: 'tokens.before', after: 'tokens.after', saved: 'tokens.saved' },
    errors,
    settings,
  };
  return writePage(join(outDir, RUN_HTML), runPage(input));
}

/** FILE.report.json of `compact`, as far as the page reads it. */
export type CompactReportFields = Shared & {
  tokenizer: string;
  tokensBefore: number;
  tokensAfter: number;
  tokensSaved: number;
  settings: Record<string, unknown>;
};

/** FILE.report.html beside FILE.report.json. */
export async function writeCompactPage(path: string, errorsFile: string, report: CompactReportFields): Promise<string> {
  const input: RunPageInput = {
    ...report,
    tool: 'compact',
    tokens: { before: report.tokensBefore, after: report.tokensAfter, saved: report.tokensSaved },
    keys: { before: 'tokensBefore', after: 'tokensAfter', saved: 'tokensSaved' },
    errors: { file: basename(errorsFile), head: await headLines(errorsFile, ERROR_LINES) },
  };
  return writePage(path, runPage(input));
}

/** DIR/eval.html beside eval.json, with the first lost probes of DIR/lost.jsonl. */
export async function writeEvalPage(outDir: string, report: EvalPageInput): Promise<string> {
  const lost = (await headLines(join(outDir, 'lost.jsonl'), LOST_LISTED, Number.POSITIVE_INFINITY)).map((l) => JSON.parse(l) as LostProbeLine);
  return writePage(join(outDir, EVAL_HTML), evalPage(report, lost));
}

/** DIR/simulate.html beside simulate.json. */
export async function writeSimulatePage(outDir: string, report: SimulatePageInput): Promise<string> {
  return writePage(join(outDir, SIMULATE_HTML), simulatePage(report));
}

/** `stats --html FILE`. */
export async function writeStatsPage(path: string, stats: StatsPageInput): Promise<string> {
  return writePage(path, statsPage(stats));
}
