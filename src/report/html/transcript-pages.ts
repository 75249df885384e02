import { hash } from 'node:crypto';

/** The folder of a run where `tcompact view` writes its pages unless told otherwise. */
export const VIEW_DIR = 'view';

/** Characters of the id a page name keeps. */
const NAME_CHARS = 64;

/**
 * The file name of a transcript's page: the id with anything but letters, digits, `.`, `_` and `-` replaced, cut short,
 * then 8 hex of the id's SHA-256, so that two ids never share a name (not even on a case-insensitive file system).
 */
export function transcriptPageName(id: string): string {
  const safe = id
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[.-]+/, '')
    .slice(0, NAME_CHARS);
  return `${safe === '' ? 'transcript' : safe}-${hash('sha256', id, 'hex').slice(0, 8)}.html`;
}

/** How the run page's table of transcripts points at the pages `tcompact view` wrote. */
export interface TranscriptLinks {
  /** The run folder, as the hint for a transcript without a page names it. */
  runDir: string;
  /** The page of each transcript that has one: a link relative to the run page. */
  pages: ReadonlyMap<string, string>;
}
