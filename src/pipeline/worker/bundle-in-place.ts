// Bundles a built entry module (under dist/) in place with every tcompact module it imports, for the build's bundling
// steps (src/pipeline/worker/bundle-entry.ts, src/cli/bundle-entry.ts): a thread then reads and compiles a few files
// instead of hundreds, and the module loader's per-file work (resolve, read, compile, link) was most of its start.
//
// `import.meta.url` keeps its meaning in every bundled module: each occurrence becomes that module's own URL under
// dist/, computed from the bundle's (its chunks sit in the entry's folder), so rank files (tokens/rank-file.ts) and
// createRequire resolve as they do unbundled. A module loaded with `await import()` stays a chunk of its own, loaded
// only when asked.
import { readFile, rm } from 'node:fs/promises';
import { basename, dirname, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const dist = fileURLToPath(new URL('../../../', import.meta.url));

function ownUrls(outdir: string): Plugin {
  return {
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
}

/**
 * zod's `z.locales` namespace holds its error messages in about 50 languages (0.37 MB of the bundle, parsed by every
 * thread); nothing in tcompact sets a locale, so every message is zod's default English one.
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

/** Packages imported by bare name for which `external` holds are imported from node_modules, not bundled. */
function externalPackages(external: (name: string) => boolean): Plugin {
  return {
    name: 'external-packages',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, ({ path }) => {
        const name = path.startsWith('@') ? path.split('/').slice(0, 2).join('/') : path.split('/')[0];
        return external(name) ? { path, external: true } : undefined;
      });
    },
  };
}

interface BundleOptions {
  /** The entry's path under dist/, e.g. `workers/compact-worker.js`. */
  entry: string;
  /** Whether a package (by name) stays outside the bundle; the others are bundled with tcompact's modules. */
  external: (name: string) => boolean;
}

export async function bundleInPlace({ entry, external }: BundleOptions): Promise<void> {
  const path = `${dist}${entry}`;
  const outdir = dirname(path);
  const name = basename(path, '.js');
  await build({
    entryPoints: [path],
    outdir,
    allowOverwrite: true,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    entryNames: '[name]',
    chunkNames: `${name}-[name]-[hash]`,
    logLevel: 'warning',
    plugins: [externalPackages(external), ownUrls(outdir), englishOnly],
  });
  // tsc's map describes the module the bundle replaced.
  await rm(`${path}.map`, { force: true });
}
