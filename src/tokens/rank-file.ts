import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type RankTable, sharedRankTableBytes, viewRankTable } from './rank-table.js';

/**
 * A rank table saved as its shared buffer, so a process views it after one read instead of compiling gpt-tokenizer's
 * rank module and indexing it (~250 ms of CPU at every start of the CLI). The build writes one per encoding beside the
 * compiled module; running from source there is none and the table is built as before. The header names the
 * gpt-tokenizer version the ranks came from: a file from another version is never read.
 */
const MAGIC = 'tcompact-ranks-1';

interface RankFileHeader {
  magic: string;
  encoding: string;
  gptTokenizer: string;
  tokens: number;
  slotCount: number;
  byteCount: number;
}

const require = createRequire(import.meta.url);

/** The version of gpt-tokenizer installed, whose rank arrays the tables come from. */
export function gptTokenizerVersion(): string {
  return (require('gpt-tokenizer/package.json') as { version: string }).version;
}

/** Where the build leaves an encoding's rank file: beside this module. */
export function rankFileUrl(encoding: string): URL {
  return new URL(`./${encoding}.ranks`, import.meta.url);
}

/** Writes a table as a rank file: a JSON header line, then the bytes of its shared buffer. */
export function writeRankFile(path: string | URL, encoding: string, table: RankTable): void {
  const { buffer, tokens, slotCount, byteCount } = table.shared;
  const header: RankFileHeader = { magic: MAGIC, encoding, gptTokenizer: gptTokenizerVersion(), tokens, slotCount, byteCount };
  writeFileSync(path, Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), new Uint8Array(buffer)]));
}

/** The table of a rank file, or undefined when there is none or it is of another encoding, version or size. */
export function readRankFile(path: string | URL, encoding: string): RankTable | undefined {
  let file: Buffer;
  try {
    file = readFileSync(path);
  } catch {
    return undefined;
  }
  const end = file.subarray(0, 512).indexOf(10);
  if (end < 0) return undefined;
  let header: Partial<RankFileHeader>;
  try {
    header = JSON.parse(file.subarray(0, end).toString('utf8')) as Partial<RankFileHeader>;
  } catch {
    return undefined;
  }
  if (header.magic !== MAGIC || header.encoding !== encoding || header.gptTokenizer !== gptTokenizerVersion()) return undefined;
  const { tokens, slotCount, byteCount } = header as RankFileHeader;
  const body = file.subarray(end + 1);
  if (body.length !== sharedRankTableBytes(tokens, slotCount, byteCount)) return undefined;
  const buffer = new SharedArrayBuffer(body.length);
  new Uint8Array(buffer).set(body);
  return viewRankTable({ buffer, tokens, slotCount, byteCount });
}
