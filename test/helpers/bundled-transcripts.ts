import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { generateArchive } from '../../datasets/generate.js';
import { readClaudeCode } from '../../src/formats/claude-code.js';
import { parseArchiveLine } from '../../src/formats/openai-jsonl.js';
import { readMessages } from '../../src/formats/messages.js';
import type { Transcript } from '../../src/model/transcript.js';
import { BUNDLED } from './paths.js';

function filesUnder(dir: string, ext: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path, ext));
    else if (name.endsWith(ext)) out.push(path);
  }
  return out;
}

/**
 * The real transcripts bundled in `datasets/bundled` that have adapters: every Claude Code session and subagent file,
 * and the 200 tau-bench runs.
 */
export async function bundledTranscripts(): Promise<Transcript[]> {
  const out: Transcript[] = [];
  const options = { maxLineBytes: 64 * 1024 * 1024 };
  for (const file of filesUnder(join(BUNDLED, 'claude-code'), '.jsonl')) {
    for await (const item of readClaudeCode(file, options)) if (item.kind === 'transcript') out.push(item.transcript);
  }
  for await (const item of readMessages(join(BUNDLED, 'tau-bench', 'gpt-4o-airline.json'), options)) {
    if (item.kind === 'transcript') out.push(item.transcript);
  }
  return out;
}

/** A small seeded synthetic archive: it has what the real files lack (inline images, tool definitions). */
export function syntheticTranscripts(seed = 7, targetBytes = 600_000): Transcript[] {
  const out: Transcript[] = [];
  for (const line of generateArchive({ seed, targetBytes, medianTranscriptBytes: 48 * 1024 })) {
    const parsed = parseArchiveLine(line);
    if (!parsed.ok) throw new Error(parsed.error.message);
    out.push(parsed.value.transcript);
  }
  return out;
}
