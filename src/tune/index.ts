// `tcompact/tune`: live compaction settings derived from an archive and exported for each runtime (re-exports only).
export { runTune, type TuneOptions, type TuneReport, type TuneResult } from './tune-run.js';
export { renderTune } from './render-tune.js';
