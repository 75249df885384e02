// `tcompact/replay`: transcripts replayed as agent loops under compaction policies, billed with prompt caching
// (re-exports only).
export { replay, type ReplayOptions, type ReplayStats } from './replay.js';
export type { PolicyInstance } from './replay.js';
export { POLICIES, DEFAULT_POLICIES, resolvePolicy, type Policy } from './policies/built-in.js';
export { Simulation, type SimulateOptions, type SimulationReport } from './simulate-run.js';
export { DEFAULT_PRICES, PricesSchema, type Prices } from './billing/prices.js';
export { renderSimulation } from './render-simulate.js';
