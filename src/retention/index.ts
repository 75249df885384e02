// `tcompact/retention`: what compaction keeps (probes, hindsight, scores), the eval job and the LLM judge
// (re-exports only).
export { Evaluation, type EvalOptions, type EvalReport, type EvalRow } from './eval-run.js';
export { PROBE_KINDS, extractProbes, type Probe, type ProbeKind } from './probes.js';
export { scoreProbes, type ProbeScore, type Tally } from './score.js';
export { Judge, JUDGE_DIMENSIONS, type JudgeOptionsInput, type JudgeReport } from './judge.js';
export { referenceCompactions, type ReferenceCompaction } from './reference-compaction.js';
export { renderEvaluation } from './render-eval.js';
