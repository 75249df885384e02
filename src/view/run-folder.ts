import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TcompactError } from '../errors.js';
import { DEFAULT_MAX_LINE_BYTES, decodeLine, readLines } from '../io/line-reader.js';
import type { Transcript } from '../model/transcript.js';
import type { RunReport } from '../pipeline/sink/run-report.js';
import { REPORT_JSON, TRANSCRIPTS_FILE } from '../pipeline/store/ordered-writer.js';
import type { LostProbe } from './transcript-view.js';

/** The run's report.json; E_USAGE when the folder is not a finished run (no report.json), E_IO when it cannot be read. */
export async function readRunReport(runDir: string): Promise<RunReport> {
  const path = join(runDir, REPORT_JSON);
  if (!existsSync(path)) throw new TcompactError('E_USAGE', `view: ${path} does not exist: give the folder of a finished 'tcompact run'`);
  try {
    return JSON.parse(await readFile(path, 'utf8')) as RunReport;
  } catch (err) {
    throw new TcompactError('E_IO', `view: cannot read ${path}: ${(err as Error).message}`);
  }
}

/** A compacted transcript as transcripts.jsonl has it, and its line there. */
export interface FoundTranscript {
  transcript: Transcript;
  line: number;
}

function asTranscript(value: unknown): Transcript | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const t = value as Record<string, unknown>;
  return typeof t.id === 'string' && Array.isArray(t.messages) ? (value as Transcript) : undefined;
}

/**
 * The compacted transcripts with these ids, the first line of each id (an id seen again is counted in `repeated`),
 * read in one pass over transcripts.jsonl that parses only the lines that hold one of the ids and stops when all are
 * found.
 */
export async function findTranscripts(runDir: string, ids: readonly string[]): Promise<{ found: Map<string, FoundTranscript>; repeated: Set<string> }> {
  const path = join(runDir, TRANSCRIPTS_FILE);
  if (!existsSync(path)) throw new TcompactError('E_IO', `view: ${path} does not exist`);
  const wanted = new Set(ids);
  const needles = [...wanted].map((id) => Buffer.from(JSON.stringify(id)));
  // Lines are kept as the input wrote them, and writers escape ids differently (Python's json writes "caf\u00e9", some
  // write \/): a line with such an escape is parsed whatever its bytes.
  const escapes = [Buffer.from('\\u'), Buffer.from('\\/')];
  const found = new Map<string, FoundTranscript>();
  const repeated = new Set<string>();
  for await (const raw of readLines(path, { maxLineBytes: DEFAULT_MAX_LINE_BYTES })) {
    const bytes = raw.bytes;
    if (bytes === null || !(needles.some((n) => bytes.includes(n)) || escapes.some((e) => bytes.includes(e)))) continue;
    const decoded = decodeLine(raw, DEFAULT_MAX_LINE_BYTES);
    if (decoded.kind !== 'text') continue;
    let transcript: Transcript | undefined;
    try {
      transcript = asTranscript(JSON.parse(decoded.text));
    } catch {
      continue;
    }
    if (!transcript || !wanted.has(transcript.id)) continue;
    if (found.has(transcript.id)) repeated.add(transcript.id);
    else found.set(transcript.id, { transcript, line: raw.line });
  }
  return { found, repeated };
}

/** The probes lost.jsonl of an eval folder lists for these transcripts, by transcript, in file order. */
export async function readLostProbes(evalDir: string, ids: readonly string[]): Promise<Map<string, LostProbe[]>> {
  const path = join(evalDir, 'lost.jsonl');
  if (!existsSync(path)) throw new TcompactError('E_USAGE', `view: ${path} does not exist: give the --out folder of 'tcompact eval'`);
  const out = new Map<string, LostProbe[]>(ids.map((id) => [id, []]));
  for await (const raw of readLines(path, { maxLineBytes: DEFAULT_MAX_LINE_BYTES })) {
    const decoded = decodeLine(raw, DEFAULT_MAX_LINE_BYTES);
    if (decoded.kind !== 'text') continue;
    let entry: { transcript?: unknown; strategy?: unknown; compaction?: unknown; probe?: unknown };
    try {
      entry = JSON.parse(decoded.text) as typeof entry;
    } catch {
      throw new TcompactError('E_JSON', `view: ${path}:${raw.line}: not JSON`);
    }
    const list = typeof entry.transcript === 'string' ? out.get(entry.transcript) : undefined;
    if (!list || typeof entry.strategy !== 'string' || entry.probe === null || typeof entry.probe !== 'object') continue;
    list.push({
      strategy: entry.strategy,
      ...(typeof entry.compaction === 'number' && { compaction: entry.compaction }),
      probe: entry.probe as LostProbe['probe'],
    });
  }
  return out;
}
