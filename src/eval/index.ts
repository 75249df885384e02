// `tcompact/eval`: what compaction keeps (probes, scores), the agent-loop replay under policies, and the LLM judge
// (re-exports only).
export { Evaluation, type EvalOptions, type EvalReport, type EvalRow } from './eval-run.js';
export { PROBE_KINDS, extractProbes, type Probe, type ProbeKind } from './probes.js';
export { scoreProbes, type ProbeScore, type Tally } from './score.js';
export { Judge, JUDGE_DIMENSIONS, type JudgeOptionsInput, type JudgeReport } from './judge.js';
export { replay, type PolicyInstance, type ReplayOptions, type ReplayStats } from './replay.js';
export { POLICIES, DEFAULT_POLICIES, resolvePolicy, type Policy } from './policies.js';
export { Simulation, type SimulateOptions, type SimulationReport } from './simulate-run.js';
export { DEFAULT_PRICES, PricesSchema, type Prices } from './pricing.js';
export { referenceCompactions, type ReferenceCompaction } from './reference-compaction.js';
export { renderEvaluation } from './render-eval.js';
export { renderSimulation } from './render-simulate.js';
