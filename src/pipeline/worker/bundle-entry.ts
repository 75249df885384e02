// Bundles the built compaction worker (dist/workers/compact-worker.js) in place with every module it imports: each pool
// thread then reads and compiles a few files instead of about 180, and the module loader's per-file work (resolve, read,
// compile, link) was most of a thread's start. Run by `npm run build` after tsc, from its own compiled copy (dist/src/pipeline/worker/bundle-entry.js); nothing
// imports it.
//
// `import.meta.url` keeps its meaning in every bundled module: each occurrence becomes that module's own URL under
// dist/, computed from the bundle's, so rank files (tokens/rank-file.ts) and createRequire resolve as they do unbundled.
// A module loaded with `await import()` (redact-secrets' detector) stays a chunk of its own, loaded only when asked.
import { readFile, rm } from 'node:fs/promises';
import { dirname, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const dist = fileURLToPath(new URL('../../../', import.meta.url));
const entry = `${dist}workers/compact-worker.js`;
const outdir = dirname(entry);

const ownUrls: Plugin = {
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, async ({ path }) => {
      const contents = await readFile(path, 'utf8');
      if (!path.startsWith(dist) || !contents.includes('import.meta.url')) return undefined;
      const own = relative(outdir, path).split(sep).join('/');
      return { contents: contents.replaceAll('import.meta.url', `new URL(${JSON.stringify(own)}, import.meta.url).href`), loader: 'js' };
    });
  },
};

/**
 * zod's `z.locales` namespace holds its error messages in about 50 languages (0.37 MB of the bundle, parsed by every
 * thread); nothing in tcompact sets a locale, so every message a worker writes is zod's default English one.
 */
const englishOnly: Plugin = {
  name: 'zod-english-only',
  setup(b) {
    b.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, ({ path }) => ({
      contents: 'export { default as en } from "./en.js";',
      loader: 'js',
      resolveDir: dirname(path),
    }));
  },
};

await build({
  entryPoints: [entry],
  outdir,
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // piscina is the thread's host: its modules must be the ones its worker loaded.
  external: ['piscina'],
  entryNames: '[name]',
  chunkNames: 'compact-worker-[name]-[hash]',
  logLevel: 'warning',
  plugins: [ownUrls, englishOnly],
});
// tsc's map describes the module the bundle replaced.
await rm(`${entry}.map`, { force: true });
