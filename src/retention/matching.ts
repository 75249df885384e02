import { REQUEST_OVERLAP_THRESHOLD, keyPhrases } from './key-phrases.js';
import type { ModelView } from './model-view.js';
import { relativeTo } from './normalize.js';
import type { Probe } from './probes.js';

const WORD_CHAR = /[A-Za-z0-9_]/;
const PATH_CHAR = /[A-Za-z0-9_\-/.]/;

/**
 * Whether `text` contains `needle` as a whole path: not preceded by a path character (so `src/a.ts` does not match
 * inside `/x/src/a.ts`'s other spellings), not followed by one (so `a.ts` does not match `a.tsx` or `a.ts/b`), except a
 * final `.` that ends a sentence.
 */
function containsPath(text: string, needle: string): boolean {
  if (needle === '') return false;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) {
    const before = at > 0 ? text[at - 1] : '';
    const after = text[at + needle.length] ?? '';
    const afterNext = text[at + needle.length + 1] ?? '';
    if (before !== '' && PATH_CHAR.test(before)) continue;
    if (after !== '' && PATH_CHAR.test(after) && !(after === '.' && !WORD_CHAR.test(afterNext))) continue;
    return true;
  }
  return false;
}

/** Whether `text` contains `needle` not glued to a word character at either end where the needle itself is wordy. */
function containsBounded(text: string, needle: string): boolean {
  if (needle === '') return false;
  const wordStart = WORD_CHAR.test(needle[0]);
  const wordEnd = WORD_CHAR.test(needle[needle.length - 1]);
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) {
    if (wordStart && at > 0 && WORD_CHAR.test(text[at - 1])) continue;
    if (wordEnd && WORD_CHAR.test(text[at + needle.length] ?? '')) continue;
    return true;
  }
  return false;
}

export interface MatchOptions {
  /** The project root (a transcript's working directory): a path also counts when written relative to it. */
  root?: string;
}

/**
 * The retention rule. A probe is retained when the model view of the compacted transcript still contains it:
 * - artifact: the normalized path, one of the spellings the calls used, or (with a root) the path relative to the root,
 *   as a whole path;
 * - command: the whitespace-collapsed command, bounded by non-word characters;
 * - error: the error line (first line, at most 200 characters), exactly;
 * - intent `verbatim`: the whole request, exactly; intent `phrases`: at least {@link REQUEST_OVERLAP_THRESHOLD} of the
 *   request's key phrases;
 * - task: the todo item's text, exactly.
 * "Exactly" is after whitespace collapsing on both sides, and case-sensitive.
 */
export function isRetained(probe: Probe, view: ModelView, options: MatchOptions = {}): boolean {
  switch (probe.kind) {
    case 'artifact': {
      if (containsPath(view.text, probe.path)) return true;
      if (probe.spellings.some((s) => containsPath(view.text, s))) return true;
      const rel = options.root === undefined ? undefined : relativeTo(probe.path, options.root);
      return rel !== undefined && containsPath(view.text, rel);
    }
    case 'command':
      return containsBounded(view.text, probe.command);
    case 'error':
      return view.text.includes(probe.line);
    case 'task':
      return view.text.includes(probe.content);
    case 'intent': {
      if (probe.match === 'verbatim') return view.text.includes(probe.text);
      const phrases = keyPhrases(probe.text);
      const index = view.phrases();
      let found = 0;
      for (const p of phrases) if (index.has(p)) found++;
      return found / phrases.length >= REQUEST_OVERLAP_THRESHOLD;
    }
  }
}
