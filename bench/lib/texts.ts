import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Keys whose string values are conversation text in the formats we read (Claude Code, OpenAI chat, tau-bench,
 * SWE-agent): what a tokenizer meets in a transcript. Ids, timestamps, paths of the session and thinking signatures
 * are left out.
 */
const TEXT_KEYS = new Set(['content', 'text', 'thinking', 'reasoning_content', 'arguments', 'observation', 'thought', 'action', 'response', 'query', 'prompt']);
/** Claude Code repeats each tool's output in a structured `toolUseResult`; counting it would double the text. */
const SKIP_KEYS = new Set(['toolUseResult', 'snapshot', 'signature']);

/** Every conversation text in a parsed JSON value; a tool call's `input` object counts as its JSON, as in the canonical form. */
export function collectTexts(value: unknown, out: string[] = [], key = ''): string[] {
  if (typeof value === 'string') {
    if (value.length > 0 && TEXT_KEYS.has(key)) out.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) collectTexts(item, out, key === 'content' || key === 'messages' ? '' : key);
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (SKIP_KEYS.has(k)) continue;
      if (k === 'input' && v !== null && typeof v === 'object') out.push(JSON.stringify(v));
      else collectTexts(v, out, k);
    }
  }
  return out;
}

/** Files under a path (itself if a file), sorted, keeping those whose name passes `accept`. */
export function listFiles(path: string, accept: (name: string) => boolean): string[] {
  if (!statSync(path, { throwIfNoEntry: false })) return [];
  if (statSync(path).isFile()) return accept(path) ? [path] : [];
  return readdirSync(path, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => (e.isDirectory() ? listFiles(join(path, e.name), accept) : accept(e.name) ? [join(path, e.name)] : []));
}

/** Texts of JSONL files (one value per line) or whole-file JSON (`.json`, `.traj`). */
export function textsOfFiles(files: readonly string[]): string[] {
  const out: string[] = [];
  for (const file of files) {
    const raw = readFileSync(file, 'utf8');
    if (file.endsWith('.jsonl')) {
      for (const line of raw.split('\n')) if (line.trim() !== '') collectTexts(JSON.parse(line), out);
    } else {
      collectTexts(JSON.parse(raw), out);
    }
  }
  return out;
}

export function utf8Bytes(texts: readonly string[]): number {
  let n = 0;
  for (const t of texts) n += Buffer.byteLength(t);
  return n;
}
