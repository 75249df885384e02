import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { TcompactError } from '../errors.js';
import { REF_LENGTH } from '../model/ref.js';

/**
 * The side store on disk: `refs.jsonl` next to the output. Its first line names its version ({@link SIDE_STORE_HEADER});
 * a file without it is version 1, which had no locators and whose restore recipes stored each changed message (both
 * still read). Then one entry per line, in the order refs first appear in each shard (a ref can repeat across shards:
 * a later copy holds the same data):
 * - `{"ref":"<16 hex>","json":<JSON text as it is>}`: JSON text (all that tcompact stores), neither escaped a second
 *   time nor parsed to be written; the input of a compaction is such an entry, its input line embedded byte for byte;
 * - `{"ref":"<16 hex>","data":"<text>"}`: other text;
 * - `{"ref":"<16 hex>","at":"<16 hex>","path":["messages",3,"content"]}`: a locator, the piece at `path` of the stored
 *   input `at` (a tool result that a strategy replaced, as it was in the input it read).
 */
export const REFS_FILE = 'refs.jsonl';

/** The side-store format this tcompact writes. */
export const SIDE_STORE_VERSION = 2;
/** The first line of a refs.jsonl this tcompact writes. */
export const SIDE_STORE_HEADER = `{"tcompact":"side-store","v":${SIDE_STORE_VERSION}}\n`;

/** Where a locator's piece sits in its layer input: keys and array indexes from the transcript down. */
export type RefPath = (string | number)[];

const JSON_HEAD = '{"ref":"';
const JSON_MIDDLE = '","json":';
/** Characters before the JSON text in a `json` line. */
const JSON_AT = JSON_HEAD.length + REF_LENGTH + JSON_MIDDLE.length;

/** The line of one entry; `json`: `data` is JSON text, embedded as it is. */
export function formatRefLine(ref: string, data: string, json = false): string {
  return json ? `${JSON_HEAD}${ref}${JSON_MIDDLE}${data}}\n` : `${JSON.stringify({ ref, data })}\n`;
}

/** The text before and after JSON bytes embedded as the `json` entry of `ref`. */
export function layerLineParts(ref: string): [string, string] {
  return [`${JSON_HEAD}${ref}${JSON_MIDDLE}`, '}\n'];
}

/**
 * The line of a locator: the piece at `path` of the stored input `layer`. The same text as `JSON.stringify({ ref, at:
 * layer, path })`: refs are hex, so only the path needs JSON's escaping, and the object is never built.
 */
export function locatorLine(ref: string, layer: string, path: RefPath): string {
  return `{"ref":"${ref}","at":"${layer}","path":${JSON.stringify(path)}}\n`;
}

export type RefLine = { ref: string; data: string } | { ref: string; at: string; path: RefPath };

/**
 * The entry of one line (without its newline): a `json` line gives back the JSON text exactly as it was written, which
 * restore checks against the ref's hash.
 */
export function parseRefLine(line: string): RefLine {
  if (line.startsWith(JSON_HEAD) && line.startsWith(JSON_MIDDLE, JSON_HEAD.length + REF_LENGTH) && line.endsWith('}')) {
    return { ref: line.slice(JSON_HEAD.length, JSON_HEAD.length + REF_LENGTH), data: line.slice(JSON_AT, -1) };
  }
  const entry = JSON.parse(line) as { ref: string; data?: string; json?: unknown; at?: unknown; path?: unknown };
  if (typeof entry.at === 'string' && Array.isArray(entry.path)) return { ref: entry.ref, at: entry.at, path: entry.path as RefPath };
  return { ref: entry.ref, data: entry.data ?? JSON.stringify(entry.json) };
}

/**
 * A ref to a piece of a stored entry by its path there, `REF/messages/3`: what `get` of a side store resolves without
 * an entry of its own (the messages a restore recipe lists as gone).
 */
export function piecePath(ref: string, path: RefPath): string {
  return `${ref}/${path.join('/')}`;
}

/** The stored ref and the path of a {@link piecePath}, or undefined for a plain ref. */
export function splitPiecePath(ref: string): { ref: string; path: RefPath } | undefined {
  const at = ref.indexOf('/');
  if (at === -1) return undefined;
  return {
    ref: ref.slice(0, at),
    path: ref
      .slice(at + 1)
      .split('/')
      .map((k) => (/^(0|[1-9][0-9]*)$/.test(k) ? Number(k) : k)),
  };
}

/** The JSON of the value at `path` in `root`, or undefined when there is none. */
export function resolvePath(root: unknown, path: RefPath): string | undefined {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string | number, unknown>)[key];
  }
  return JSON.stringify(value);
}

/** Locators resolved against their stored input, the last one parsed kept: a transcript's pieces are looked up together. */
export class LocatorReader {
  private last: { ref: string; value: unknown } | undefined;

  /** The piece at `path` of the input stored as `at`; `input` gives that input's text, or undefined when none is stored. */
  read(at: string, path: RefPath, input: () => string | undefined): string | undefined {
    if (this.last?.ref !== at) {
      const text = input();
      if (text === undefined) return undefined;
      this.last = { ref: at, value: JSON.parse(text) };
    }
    return resolvePath(this.last.value, path);
  }
}

/**
 * A side store read from its file: entries by ref, locators resolved from their stored input when asked for (the last
 * input parsed is kept, since a transcript's pieces are looked up together).
 */
export class SideStore {
  readonly data = new Map<string, string>();
  readonly locators = new Map<string, { at: string; path: RefPath }>();
  private readonly inputs = new LocatorReader();

  constructor(readonly version: number) {}

  add(entry: RefLine): void {
    if ('data' in entry) this.data.set(entry.ref, entry.data);
    else this.locators.set(entry.ref, { at: entry.at, path: entry.path });
  }

  get(ref: string): string | undefined {
    const data = this.data.get(ref);
    if (data !== undefined) return data;
    const locator = this.locators.get(ref) ?? pieceLocator(ref);
    if (!locator) return undefined;
    return this.inputs.read(locator.at, locator.path, () => this.data.get(locator.at));
  }
}

function pieceLocator(ref: string): { at: string; path: RefPath } | undefined {
  const piece = splitPiecePath(ref);
  return piece && { at: piece.ref, path: piece.path };
}

/** The version a side store's first line names, or undefined when it is an entry (a version 1 file). */
function headerVersion(line: string): number | undefined {
  if (!line.startsWith('{"tcompact":')) return undefined;
  const header = JSON.parse(line) as { tcompact?: unknown; v?: unknown };
  return header.tcompact === 'side-store' && typeof header.v === 'number' ? header.v : undefined;
}

/**
 * Reads a side store of any version this tcompact knows; a newer one is refused with E_REF naming its version, since
 * its entries could mean what this version cannot tell.
 */
export async function readRefFile(path: string): Promise<SideStore> {
  let store: SideStore | undefined;
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
  for await (const line of lines) {
    if (line === '') continue;
    if (!store) {
      const version = headerVersion(line);
      if (version !== undefined && (version > SIDE_STORE_VERSION || version < 1 || !Number.isInteger(version))) {
        lines.close();
        throw new TcompactError(
          'E_REF',
          `${path} is a side store of version ${version}; this tcompact reads versions 1 to ${SIDE_STORE_VERSION}: restore it with the tcompact that wrote it`,
        );
      }
      store = new SideStore(version ?? 1);
      if (version !== undefined) continue;
    }
    store.add(parseRefLine(line));
  }
  return store ?? new SideStore(SIDE_STORE_VERSION);
}
