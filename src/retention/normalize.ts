import { collapseWhitespace } from '../model/tool-outcome.js';
import { normalizePath } from '../model/tool-semantics.js';

export { MAX_ERROR_LINE_CHARS, collapseWhitespace } from '../model/tool-outcome.js';

/** A shell command as a probe compares it: whitespace collapsed. */
export function normalizeCommand(command: string): string {
  return collapseWhitespace(command);
}

/** A file path as a probe compares it: separators, `.`/`..` segments and duplicate or trailing slashes normalized. */
export function normalizeProbePath(path: string): string {
  return normalizePath(collapseWhitespace(path));
}

/**
 * `path` relative to `root` when it lies under it (`/repo/src/a.ts` under `/repo` is `src/a.ts`); undefined otherwise.
 * Both are normalized first.
 */
export function relativeTo(path: string, root: string): string | undefined {
  const p = normalizeProbePath(path);
  const r = normalizeProbePath(root);
  if (r === '' || r === '/') return undefined;
  if (!p.startsWith(`${r}/`)) return undefined;
  const rest = p.slice(r.length + 1);
  return rest === '' ? undefined : rest;
}
