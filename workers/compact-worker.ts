// Piscina entry point: the shard runner and nothing else (logic lives in src/pipeline).
export { runShard as default } from '../src/pipeline/shard-runner.js';
