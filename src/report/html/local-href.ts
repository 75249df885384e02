import { relative, sep } from 'node:path';

/**
 * The link from a page in `fromDir` to a local `file`: `./`-relative, `/` whatever the platform, each segment
 * percent-encoded. A folder named `javascript:x` or `view:x` is then a path (`./javascript%3Ax/...`), never a scheme,
 * and `#`, `?` or `%` in a name do not cut the path short.
 */
export function localHref(fromDir: string, file: string): string {
  const segments = relative(fromDir, file).split(sep).map(encodeURIComponent);
  return segments[0] === '..' ? segments.join('/') : `./${segments.join('/')}`;
}
