import type { OutputBuffer } from './output-buffer.js';
import type { HandedOnTranscript, ShardOutput, ShardReport } from './types.js';

interface SectionTexts {
  transcripts: string;
  errors: string;
  refs: string;
}

/**
 * Whether `bytes` may be handed on as they are: a buffer of their own that the output may move and free (a buffer no
 * larger than Node's Buffer pool may be that pool, which must never be moved).
 */
const ownBuffer = (bytes: Uint8Array): boolean => bytes.buffer instanceof ArrayBuffer && bytes.buffer.byteLength > Buffer.poolSize;

/**
 * Ends a shard's output: `body` holds its transcripts section; the errors and the refs follow it. The refs' text is
 * written into the body. With `ownLines`, the byte arrays among `refs` (the input lines the side store keeps, views of
 * the chunks the worker read) belong to this output: they are handed on as they are, not copied, and the refs section
 * is then `refParts`, the body's text between them and the lines themselves. Copying them wrote each into fresh
 * memory, whose first touch (a page fault) cost ten times the copy.
 */
export function endShardOutput(
  body: OutputBuffer,
  errors: string,
  refs: readonly (string | Uint8Array)[],
  report: ShardReport,
  options: { handedOn?: HandedOnTranscript[]; ownLines?: boolean } = {},
): ShardOutput {
  const transcripts = body.length;
  body.write(errors);
  const refsStart = body.length;
  /** The refs section in order: [start, end) ranges of the body, and lines handed on as they are. */
  const pieces: (Uint8Array | [number, number])[] = [];
  let from = refsStart;
  let handed = 0;
  for (const chunk of refs) {
    if (typeof chunk === 'string' || options.ownLines !== true || !ownBuffer(chunk)) {
      body.write(chunk);
      continue;
    }
    if (body.length > from) pieces.push([from, body.length]);
    pieces.push(chunk);
    handed += chunk.byteLength;
    from = body.length;
  }
  const bytes = body.bytes();
  const sizes = { transcripts, errors: refsStart - transcripts, refs: body.length - refsStart + handed };
  const output: ShardOutput = { body: bytes, sizes, report };
  if (handed > 0) {
    if (body.length > from) pieces.push([from, body.length]);
    output.refParts = pieces.map((p) => (p instanceof Uint8Array ? p : bytes.subarray(p[0], p[1])));
  }
  if (options.handedOn && options.handedOn.length > 0) output.handedOn = options.handedOn;
  return output;
}

/** Views (no copies) of the three sections of an output, the refs section as the pieces it is written from. */
export function sectionsOf(output: Pick<ShardOutput, 'body' | 'sizes' | 'refParts'>): { transcripts: Buffer; errors: Buffer; refs: readonly Uint8Array[] } {
  const { body, sizes } = output;
  const all = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return {
    transcripts: all.subarray(0, sizes.transcripts),
    errors: all.subarray(sizes.transcripts, sizes.transcripts + sizes.errors),
    refs: output.refParts ?? [all.subarray(sizes.transcripts + sizes.errors)],
  };
}

/** The output's sections back to back, as the pieces to write in order (views, no copies). */
export function bodyParts(output: Pick<ShardOutput, 'body' | 'sizes' | 'refParts'>): readonly Uint8Array[] {
  if (!output.refParts) return [output.body];
  return [output.body.subarray(0, output.sizes.transcripts + output.sizes.errors), ...output.refParts];
}

/** The bytes of the output's sections (what a shard file holds of them). */
export function outputBytes(output: Pick<ShardOutput, 'sizes'>): number {
  return output.sizes.transcripts + output.sizes.errors + output.sizes.refs;
}

/** Every buffer the output's bytes lie in, each once: what moves with it to another thread, and what is freed after. */
export function outputBuffers(output: Pick<ShardOutput, 'body' | 'refParts'>): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>([output.body.buffer as ArrayBuffer]);
  for (const part of output.refParts ?? []) buffers.add(part.buffer as ArrayBuffer);
  return [...buffers];
}

/** The sections as text (the main thread's LLM stage works on transcripts and refs). */
export function sectionTexts(output: Pick<ShardOutput, 'body' | 'sizes' | 'refParts'>): SectionTexts {
  const s = sectionsOf(output);
  return {
    transcripts: s.transcripts.toString('utf8'),
    errors: s.errors.toString('utf8'),
    refs: Buffer.concat(s.refs).toString('utf8'),
  };
}
