// Bundles the built CLI (dist/src/cli/bin.js) in place with tcompact's modules and zod: the main thread of a command
// then reads and compiles a few files instead of about 300 (`run`), each command and each reader staying a chunk of its
// own, loaded when dispatched as before. Run by `npm run build` after tsc, from its own compiled copy
// (dist/src/cli/bundle-entry.js); nothing imports it.
import { bundleInPlace } from '../pipeline/worker/bundle-in-place.js';

// Other packages load from node_modules as they did: piscina starts its threads from its own files, sql.js finds its
// wasm beside its module, and the secret rules are one file already.
await bundleInPlace({ entry: 'src/cli/bin.js', external: (name) => name !== 'zod' });
