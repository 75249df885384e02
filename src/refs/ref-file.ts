import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { REF_LENGTH } from '../model/ref.js';

/**
 * The side store on disk: `refs.jsonl` next to the output, one entry per line, each ref once (the run merge may repeat
 * one it no longer remembers), in the order refs first appear in the output. An entry whose data is JSON text (all that
 * tcompact's strategies store) is `{"ref":"<16 hex>","json":<the JSON text as it is>}`, so it is neither escaped a
 * second time nor parsed to be written; other text is `{"ref":"<16 hex>","data":"<text>"}`.
 */
export const REFS_FILE = 'refs.jsonl';

const JSON_HEAD = '{"ref":"';
const JSON_MIDDLE = '","json":';
/** Characters before the JSON text in a `json` line. */
const JSON_AT = JSON_HEAD.length + REF_LENGTH + JSON_MIDDLE.length;

/** The line of one entry; `json`: `data` is JSON text, embedded as it is. */
export function formatRefLine(ref: string, data: string, json = false): string {
  return json ? `${JSON_HEAD}${ref}${JSON_MIDDLE}${data}}\n` : `${JSON.stringify({ ref, data })}\n`;
}

/**
 * The entry of one line (without its newline): a `json` line gives back the JSON text exactly as it was written, which
 * restore checks against the ref's hash.
 */
export function parseRefLine(line: string): { ref: string; data: string } {
  if (line.startsWith(JSON_HEAD) && line.startsWith(JSON_MIDDLE, JSON_HEAD.length + REF_LENGTH) && line.endsWith('}')) {
    return { ref: line.slice(JSON_HEAD.length, JSON_HEAD.length + REF_LENGTH), data: line.slice(JSON_AT, -1) };
  }
  const entry = JSON.parse(line) as { ref: string; data?: string; json?: unknown };
  return { ref: entry.ref, data: entry.data ?? JSON.stringify(entry.json) };
}

export async function readRefFile(path: string): Promise<Map<string, string>> {
  const refs = new Map<string, string>();
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
  for await (const line of lines) {
    if (line === '') continue;
    const { ref, data } = parseRefLine(line);
    refs.set(ref, data);
  }
  return refs;
}
