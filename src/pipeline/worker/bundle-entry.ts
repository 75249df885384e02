// Bundles the built compaction worker (dist/workers/compact-worker.js) in place with every module it imports: each pool
// thread then reads and compiles a few files instead of about 180. Run by `npm run build` after tsc, from its own
// compiled copy (dist/src/pipeline/worker/bundle-entry.js); nothing imports it. A module loaded with `await import()`
// (redact-secrets' detector) stays a chunk of its own, loaded only when asked.
import { bundleInPlace } from './bundle-in-place.js';

// piscina is the thread's host: its modules must be the ones its worker loaded.
await bundleInPlace({ entry: 'workers/compact-worker.js', external: (name) => name === 'piscina' });
