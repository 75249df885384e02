import { basename, join } from 'node:path';
import { TcompactError } from '../../errors.js';
import { writeFileAtomic } from '../../io/atomic-file.js';
import { type EvalPageInput, type LostProbeLine, evalPage } from './eval-page.js';
import { headLines } from './head-lines.js';
import { type Page, renderPage } from './page.js';
import { type RunPageInput, runPage } from './run-page.js';
import { type SimulatePageInput, simulatePage } from './simulate-page.js';
import { type StatsPageInput, statsPage } from './stats-page.js';
import { type TunePageInput, tunePage } from './tune-page.js';

export const RUN_HTML = 'report.html';
const EVAL_HTML = 'eval.html';
const SIMULATE_HTML = 'simulate.html';
const TUNE_HTML = 'tune.html';

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
type RunReportFields = Shared & { tokens: { before: number; after: number; saved: number; tokenizer: string } };

/** Where a run's page goes and the errors file it quotes: DIR/report.html for `run`, FILE.report.html for `compact`. */
interface RunPagePaths {
  html: string;
  errors: string;
}

/** The page of a run or compact report, beside its report.json; `settings` are those that produced it. */
export async function writeRunPage(paths: RunPagePaths, tool: 'run' | 'compact', report: RunReportFields, settings: Record<string, unknown>): Promise<string> {
  const errors = { file: basename(paths.errors), head: await headLines(paths.errors, ERROR_LINES) };
  const input: RunPageInput = {
    ...report,
    tool,
    tokenizer: report.tokens.tokenizer,
    keys: { before: 'tokens.before', after: 'tokens.after', saved: 'tokens.saved' },
    errors,
    settings,
  };
  return writePage(paths.html, runPage(input));
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

/** DIR/tune.html beside tune.json. */
export async function writeTunePage(outDir: string, report: TunePageInput): Promise<string> {
  return writePage(join(outDir, TUNE_HTML), tunePage(report));
}
