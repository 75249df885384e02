// Piscina entry point used when the pool runs from source (tests, benchmarks through tsx): loads the TypeScript worker
// through tsx, so a stale dist/ is never used by accident. The built package uses dist/workers/compact-worker.js.
import { tsImport } from 'tsx/esm/api';

const worker = await tsImport('./compact-worker.ts', import.meta.url);
export default worker.default;
