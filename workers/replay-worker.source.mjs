// Piscina entry point used when the replay pool runs from source: as compact-worker.source.mjs, the TypeScript worker
// through tsx, or the built one once the test suite has checked that dist/ is current (TCOMPACT_BUILT_WORKERS=1).
const worker =
  process.env.TCOMPACT_BUILT_WORKERS === '1'
    ? await import('../dist/workers/replay-worker.js')
    : await import('tsx/esm/api').then(({ tsImport }) => tsImport('./replay-worker.ts', import.meta.url));
export default worker.default;
