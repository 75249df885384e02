import { readInputs } from '../../src/formats/read-inputs.js';
import type { Transcript } from '../../src/model/transcript.js';
import { corpusPath } from './corpus.js';

/** The shared datasets that have an adapter (aider's Markdown has none). */
export const REAL_DATASETS = ['spotter', 'session-share', 'tau-bench', 'swe-agent', 'openhands'] as const;

/** Every real session of the shared corpus (TCOMPACT_CORPUS), read through `readInputs` as the CLI reads them. */
export async function realSessions(): Promise<Transcript[]> {
  const out: Transcript[] = [];
  const paths = REAL_DATASETS.map((d) => corpusPath(d, 'files'));
  for await (const item of readInputs(paths, { maxLineBytes: 64 * 1024 * 1024 })) {
    if (item.kind === 'transcript') out.push(item.transcript);
    else if (item.kind === 'error') throw new Error(`${item.record.file}:${item.record.line}: ${item.record.code}: ${item.record.message}`);
  }
  return out;
}
