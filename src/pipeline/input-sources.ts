import { readdir, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { TcompactError } from '../errors.js';
import type { FormatName } from '../formats/types.js';
import { readLines } from './line-reader.js';

/**
 * How the run reads one input path. A canonical archive is split into byte ranges that workers read themselves; any
 * other input (a Claude Code directory, a tau-bench array, a .traj file...) goes through the format adapters on the main
 * thread and reaches the workers as batches of converted transcripts.
 */
export interface InputSource {
  /** The path as given. */
  input: string;
  kind: 'archive' | 'adapter';
  /** Every file the input covers, sorted (the input itself for a file): what the resume fingerprint covers. */
  files: string[];
}

/** A first line longer than this is not looked at: a `.jsonl` file with such a line is taken as an archive. */
const SNIFF_MAX_BYTES = 16 * 1024 * 1024;

export async function resolveInputSources(inputs: readonly string[], from?: FormatName): Promise<InputSource[]> {
  const sources: InputSource[] = [];
  for (const input of inputs) {
    let info;
    try {
      info = await stat(input);
    } catch (err) {
      throw new TcompactError('E_IO', `cannot read input "${input}": ${(err as Error).message}`);
    }
    if (info.isDirectory()) {
      sources.push({ input, kind: 'adapter', files: await listFiles(input) });
      continue;
    }
    const archive = from === undefined ? await looksLikeArchive(input) : from === 'openai';
    sources.push({ input, kind: archive ? 'archive' : 'adapter', files: [input] });
  }
  return sources;
}

/**
 * A canonical archive's first non-blank line is an object with a string `id` and a `messages` array. An empty file is
 * an (empty) archive. Lines that do not parse say nothing about the format, so the next one is tried.
 */
async function looksLikeArchive(file: string): Promise<boolean> {
  let looked = 0;
  for await (const raw of readLines(file, { maxLineBytes: SNIFF_MAX_BYTES })) {
    if (raw.bytes === null) return extname(file) === '.jsonl';
    const text = raw.bytes.toString('utf8').trim();
    if (text === '') continue;
    if (++looked > 8) break;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      continue;
    }
    const record = value as { id?: unknown; messages?: unknown } | null;
    return record !== null && typeof record === 'object' && typeof record.id === 'string' && Array.isArray(record.messages);
  }
  return extname(file) === '.jsonl' || looked === 0;
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}
