import type { HandedOnTranscript, SectionSizes, ShardOutput, ShardReport } from './types.js';

interface SectionTexts {
  transcripts: string;
  errors: string;
  refs: string;
}

/**
 * The sections to encode: the transcripts section may come as each transcript's bytes, encoded as it was written, and
 * the refs section may hold bytes already encoded (input lines the side store keeps).
 */
interface SectionParts {
  transcripts: string | readonly Uint8Array[];
  errors: string;
  refs: string | readonly (string | Uint8Array)[];
}

const byteLength = (chunks: readonly (string | Uint8Array)[]): number =>
  chunks.reduce((n, c) => n + (typeof c === 'string' ? Buffer.byteLength(c, 'utf8') : c.byteLength), 0);

/**
 * Encodes the sections into one buffer of its own (never a slice of Node's shared Buffer pool, which must not be
 * transferred), writing each string straight into it.
 */
export function encodeShardOutput(texts: SectionParts, report: ShardReport, handedOn?: HandedOnTranscript[]): ShardOutput {
  const transcripts = typeof texts.transcripts === 'string' ? [texts.transcripts] : texts.transcripts;
  const refs = typeof texts.refs === 'string' ? [texts.refs] : texts.refs;
  const sizes: SectionSizes = {
    transcripts: byteLength(transcripts),
    errors: Buffer.byteLength(texts.errors, 'utf8'),
    refs: byteLength(refs),
  };
  const body = Buffer.allocUnsafeSlow(sizes.transcripts + sizes.errors + sizes.refs);
  let at = writeChunks(body, 0, transcripts);
  at += body.write(texts.errors, at, 'utf8');
  writeChunks(body, at, refs);
  const output: ShardOutput = { body, sizes, report };
  if (handedOn && handedOn.length > 0) output.handedOn = handedOn;
  return output;
}

/** Writes `chunks` into `body` from `at`, strings as UTF-8; returns the offset after them. */
function writeChunks(body: Buffer, at: number, chunks: readonly (string | Uint8Array)[]): number {
  for (const chunk of chunks) {
    if (typeof chunk === 'string') at += body.write(chunk, at, 'utf8');
    else {
      body.set(chunk, at);
      at += chunk.byteLength;
    }
  }
  return at;
}

/** Views (no copies) of the three sections of a body. */
export function sectionsOf(output: Pick<ShardOutput, 'body' | 'sizes'>): { transcripts: Buffer; errors: Buffer; refs: Buffer } {
  const { body, sizes } = output;
  const all = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return {
    transcripts: all.subarray(0, sizes.transcripts),
    errors: all.subarray(sizes.transcripts, sizes.transcripts + sizes.errors),
    refs: all.subarray(sizes.transcripts + sizes.errors),
  };
}

/** The sections as text (the main thread's LLM stage works on transcripts and refs). */
export function sectionTexts(output: Pick<ShardOutput, 'body' | 'sizes'>): SectionTexts {
  const s = sectionsOf(output);
  return { transcripts: s.transcripts.toString('utf8'), errors: s.errors.toString('utf8'), refs: s.refs.toString('utf8') };
}
