// Piscina entry point: the shard runner and nothing else (logic lives in src/pipeline).
export { runShardTask as default } from '../src/pipeline/worker/piscina-entry.js';
