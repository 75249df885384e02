// `tcompact/replay`: transcripts replayed as agent loops under compaction policies, billed with prompt caching
// (re-exports only).
export { replay, type ReplayLoopOptions, type ReplayStats, type ReplayedCall } from './replay.js';
export type { Policy, PolicyInstance } from './policies/policy.js';
export { POLICIES, DEFAULT_POLICIES } from './policies/built-in.js';
export { resolvePolicy } from './policies/resolve.js';
export { Simulation, type SimulateOptions } from './simulation.js';
export type { SimulationReport } from './simulation-report.js';
export type { SessionFidelity, CallDeparture, FidelityPair } from './fidelity/session-fidelity.js';
export type { FidelitySummary } from './fidelity/fidelity-summary.js';
export type { DepartureCause } from './fidelity/departure-cause.js';
export { ReplayOptionsSchema, type ReplayOptions, type ReplayOptionsInput } from './replay-options.js';
export { DEFAULT_PRICES, PricesSchema, type Prices } from './billing/prices.js';
export { renderSimulation } from './render-simulate.js';
