/**
 * The Piscina entry `workers/NAME`: dist/workers/NAME.js in the built package; when this module runs from source
 * (tests, benchmarks), workers/NAME.source.mjs, which loads the TypeScript worker through tsx (or the built one once the
 * test suite has checked that dist/ is current), so a stale dist/ is never used by accident.
 */
export function workerEntry(name: string): string {
  const here = import.meta.url;
  return new URL(here.endsWith('.ts') ? `../../workers/${name}.source.mjs` : `../../workers/${name}.js`, here).href;
}
