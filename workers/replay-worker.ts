// Piscina entry point: one transcript replayed under every policy, and nothing else (logic lives in src/eval).
export { replayTask as default } from '../src/replay/replay-task.js';
