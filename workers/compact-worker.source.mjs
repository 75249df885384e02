// Piscina entry point used when the pool runs from source (tests, benchmarks through tsx): loads the TypeScript worker
// through tsx, so a stale dist/ is never used by accident. The test suite builds dist/ first when it is stale and then
// sets TCOMPACT_BUILT_WORKERS=1 to load the built worker instead: a thread that goes through tsx compiles every module
// again (about a second of CPU each). The built package uses dist/workers/compact-worker.js.
const worker =
  process.env.TCOMPACT_BUILT_WORKERS === '1'
    ? await import('../dist/workers/compact-worker.js')
    : await import('tsx/esm/api').then(({ tsImport }) => tsImport('./compact-worker.ts', import.meta.url));
export default worker.default;
