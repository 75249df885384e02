import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type ErrorCode, TcompactError } from '../errors.js';
import { writeFileAtomic } from '../io/atomic-file.js';
import { runFinalPaths } from '../pipeline/store/ordered-writer.js';
import { REFS_FILE, readRefFile } from '../refs/ref-file.js';
import { restoreWithFates } from '../refs/restore.js';
import { VIEW_DIR, transcriptPageName } from '../report/html/transcript-pages.js';
import { writeRunPage } from '../pipeline/sink/run-page.js';
import { localHref } from '../report/html/local-href.js';
import { RUN_HTML } from '../report/html/write-pages.js';
import { SecretMasker } from '../secrets/mask.js';
import { getTokenizer } from '../tokens/tokenizer.js';
import { findTranscripts, readLostProbes, readRunReport } from './run-folder.js';
import { transcriptView } from './transcript-view.js';
import { renderViewPage } from './view-page.js';

export interface ViewOptions {
  /** The folder of a finished `tcompact run`. */
  runDir: string;
  /** The transcripts to show. @default the largest ones report.json lists, the rows of the run page's table */
  ids?: readonly string[];
  /** An eval of the run (`tcompact eval --compacted RUN_DIR --out EVAL_DIR`): its lost probes are marked. */
  evalDir?: string;
  /** Where the pages go. @default RUN_DIR/view */
  outDir?: string;
  /** Masks the secrets of every page and of the run page written again. @default masking on */
  masker?: SecretMasker;
}

export interface ViewResult {
  /** Where the pages went. */
  outDir: string;
  /** The pages written, in the order of the ids. */
  pages: { id: string; path: string }[];
  /** Ids that are not in the run's transcripts.jsonl. */
  missing: string[];
  /** Transcripts whose originals could not be restored from the side store. */
  failed: { id: string; code: ErrorCode; message: string }[];
  /** Ids on more than one line of transcripts.jsonl: the page shows the first. */
  repeated: string[];
  /** The run page, written again with its table linking to the pages; undefined when the run has none. */
  runPage?: string;
}

/**
 * Writes one page per transcript of a run (see view-page.ts): the original from the side store, the compacted one
 * from transcripts.jsonl, aligned; then writes the run's report.html again, the same page with its table of the largest
 * transcripts linking to the pages that exist (in `outDir`, else in RUN_DIR/view).
 */
export async function writeViews(options: ViewOptions): Promise<ViewResult> {
  const { runDir } = options;
  const masker = options.masker ?? new SecretMasker();
  const report = await readRunReport(runDir);
  if (report.settings.refs === false) {
    throw new TcompactError('E_USAGE', `view: ${runDir} was compacted with --no-refs: there is no side store to give back its originals`);
  }
  const ids = [...new Set(options.ids ?? report.spread.largest.map((t) => t.id))];
  const outDir = options.outDir ?? join(runDir, VIEW_DIR);
  const { found, repeated } = await findTranscripts(runDir, ids);
  const refsPath = join(runDir, REFS_FILE);
  const refs = existsSync(refsPath) ? await readRefFile(refsPath) : new Map<string, string>();
  const lost = options.evalDir === undefined ? undefined : await readLostProbes(options.evalDir, ids);
  const tokenizer = getTokenizer(report.tokens.tokenizer, report.tokens.engine ?? undefined);
  const largest = new Map(report.spread.largest.map((t) => [t.id, `${t.file}:${t.line}`]));
  const result: ViewResult = { outDir, pages: [], missing: [], failed: [], repeated: [...repeated] };
  await mkdir(outDir, { recursive: true });
  for (const id of ids) {
    const entry = found.get(id);
    if (!entry) {
      result.missing.push(id);
      continue;
    }
    const restored = restoreWithFates(entry.transcript, refs);
    if (!restored.ok) {
      result.failed.push({ id, ...restored.error });
      continue;
    }
    const sourceFile = (entry.transcript.metadata?.source as { file?: unknown } | undefined)?.file;
    const view = transcriptView({
      original: restored.value.transcript,
      compacted: entry.transcript,
      fates: restored.value.fates,
      tokenizer,
      steps: report.settings.steps,
      strategies: report.settings.strategies,
      lookup: (ref) => refs.get(ref),
      source: largest.get(id) ?? (typeof sourceFile === 'string' ? sourceFile : undefined),
      ...(lost && { lost: lost.get(id) ?? [] }),
    });
    const path = join(outDir, transcriptPageName(id));
    try {
      await writeFileAtomic(path, [renderViewPage(masker.value(view))]);
    } catch (err) {
      throw new TcompactError('E_IO', `view: cannot write ${path}: ${(err as Error).message}`);
    }
    result.pages.push({ id, path });
  }
  const runPage = join(runDir, RUN_HTML);
  if (existsSync(runPage)) {
    // The pages just written first, then those of an earlier view in the default folder.
    const pages = new Map<string, string>();
    for (const t of report.spread.largest) {
      const page = [outDir, join(runDir, VIEW_DIR)].map((dir) => join(dir, transcriptPageName(t.id))).find((path) => existsSync(path));
      if (page !== undefined) pages.set(t.id, localHref(runDir, page));
    }
    const { errors } = runFinalPaths(runDir);
    const shown = masker.value(report);
    result.runPage = await writeRunPage({ html: runPage, errors }, 'run', shown, { ...shown.settings, workers: shown.workers }, { runDir, pages });
  }
  return result;
}
