// Public API: re-exports only.
export * from './errors.js';
export * from './model/content.js';
export * from './model/message.js';
export * from './model/transcript.js';
export * from './model/parse.js';
export * from './model/validity.js';
export * from './tokens/tokenizer.js';
export * from './tokens/breakdown.js';
export * from './tokens/window.js';
export * from './refs/ref-store.js';
export * from './strategies/types.js';
export * from './strategies/boundaries.js';
export * from './strategies/runner.js';
export * from './strategies/registry.js';
export * from './formats/types.js';
export * from './formats/read-inputs.js';
export { main } from './cli/main.js';
