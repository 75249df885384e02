import { readInputs } from '../../src/formats/read-inputs.js';
import type { Transcript } from '../../src/model/transcript.js';
import { DEFAULT_MAX_LINE_BYTES } from '../../src/io/line-reader.js';
import { corpusInputs, type CorpusSpec } from './corpora.js';

export interface LoadedCorpus {
  name: string;
  transcripts: Transcript[];
  messages: number;
  /** UTF-8 bytes of the transcripts in canonical JSON: the unit of MB/s for in-memory benchmarks. */
  canonicalBytes: number;
  /** Input records the readers could not turn into transcripts, by error code (e.g. no adapter for the format yet). */
  errors: Record<string, number>;
}

/** Reads a corpus through tcompact's own readers (format detection and adapters, as `tcompact run` reads them). */
export async function loadCanonical(spec: CorpusSpec, tmpDir: string): Promise<LoadedCorpus> {
  const loaded: LoadedCorpus = { name: spec.name, transcripts: [], messages: 0, canonicalBytes: 0, errors: {} };
  for (const input of await corpusInputs(spec, tmpDir)) {
    try {
      for await (const item of readInputs([input], { maxLineBytes: DEFAULT_MAX_LINE_BYTES })) {
        if (item.kind === 'transcript') {
          loaded.transcripts.push(item.transcript);
          loaded.messages += item.transcript.messages.length;
          loaded.canonicalBytes += Buffer.byteLength(JSON.stringify(item.transcript));
        } else if (item.kind === 'error') {
          loaded.errors[item.record.code] = (loaded.errors[item.record.code] ?? 0) + 1;
        }
      }
    } catch (err) {
      // A reader that cannot open the input at all (e.g. a directory before directory support lands).
      const code = (err as { code?: string }).code ?? 'E_IO';
      loaded.errors[code] = (loaded.errors[code] ?? 0) + 1;
    }
  }
  return loaded;
}

/** Why a corpus has no transcripts, for the "pending" list. */
export function unavailableReason(c: LoadedCorpus): string {
  const errors = Object.entries(c.errors)
    .map(([code, n]) => `${n} ${code}`)
    .join(', ');
  return `not yet available: ${c.name} gives no canonical transcript through src/formats (${errors || 'no records'}); its adapter has not landed`;
}
