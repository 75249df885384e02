import { join } from 'node:path';
import { generateArchive } from '../../datasets/generate.js';
import { parseTranscript } from '../../src/model/parse.js';
import { readInputs } from '../../src/formats/read-inputs.js';
import type { Transcript } from '../../src/model/transcript.js';
import { BUNDLED } from './paths.js';

/**
 * Every real transcript bundled in `datasets/bundled` (Claude Code, tau-bench, SWE-agent, OpenHands), as `readInputs`
 * reads them; or only those of one of its folders (`claude-code`), for a test that needs no other agent's.
 */
export async function bundledTranscripts(folder?: string): Promise<Transcript[]> {
  const out: Transcript[] = [];
  for await (const item of readInputs([folder === undefined ? BUNDLED : join(BUNDLED, folder)], { maxLineBytes: 64 * 1024 * 1024 })) {
    if (item.kind === 'transcript') out.push(item.transcript);
    else if (item.kind === 'error') throw new Error(`${item.record.file}:${item.record.line}: ${item.record.message}`);
  }
  return out;
}

/** A small seeded synthetic archive: it has what the real files lack (inline images, tool definitions). */
export function syntheticTranscripts(seed = 7, targetBytes = 600_000): Transcript[] {
  const out: Transcript[] = [];
  for (const line of generateArchive({ seed, targetBytes, medianTranscriptBytes: 48 * 1024 })) {
    const parsed = parseTranscript(JSON.parse(line));
    if (!parsed.ok) throw new Error(parsed.error.message);
    out.push(parsed.value.transcript);
  }
  return out;
}
