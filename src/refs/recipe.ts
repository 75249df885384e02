import { z } from 'zod';
import type { Message } from '../model/message.js';
import type { Transcript } from '../model/transcript.js';
import { REF_LENGTH, type RefSink } from './ref-store.js';

const RefSchema = z.string().regex(new RegExp(`^[0-9a-f]{${REF_LENGTH}}$`));

/**
 * How to rebuild the transcript as it was before one compaction (one "layer") from the transcript after it. Stored in
 * the side store as JSON; its ref is in the compacted transcript's `metadata.tcompact.restore`.
 */
export const RecipeSchema = z.strictObject({
  v: z.literal(1),
  /** The top-level keys of the transcript before compaction, in their order. */
  keys: z.array(z.string()),
  /**
   * Each message before compaction, in order: `{keep, n}` is a run of `n` (default 1) messages that survived as they
   * were, at `keep`, `keep + 1`, ... in the compacted transcript; `{ref}` is a message stored in the side store. A
   * strategy that replaced a message's content (or some of its parts) already stored it: then `{ref}` is the message
   * with that content (or those parts) set to null, and `content` (or `parts`, by index) gives the stored value's ref.
   */
  messages: z.array(
    z.union([
      z.strictObject({ keep: z.number().int().min(0), n: z.number().int().min(2).optional() }),
      z.strictObject({
        ref: RefSchema,
        content: RefSchema.optional(),
        parts: z.record(z.string().regex(/^(0|[1-9][0-9]*)$/), RefSchema).optional(),
      }),
    ]),
  ),
  /** Top-level fields (other than `messages`) whose value changed: their JSON in the side store. */
  fields: z.record(z.string(), RefSchema),
});
export type Recipe = z.infer<typeof RecipeSchema>;
export type RecipeEntry = Recipe['messages'][number];

/** What tcompact records in `metadata.tcompact` of a transcript it changed. */
interface TcompactMetadata {
  /** Ref of the restore recipe of the latest compaction. */
  restore: string;
  /** How many compactions were applied on top of the original (restore undoes them one by one). */
  layers: number;
}

/** The `metadata.tcompact` of a compacted transcript, or undefined for a transcript tcompact never changed. */
export function tcompactMetadata(t: { metadata?: unknown }): TcompactMetadata | undefined {
  const meta = t.metadata;
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) return undefined;
  const tc = (meta as Record<string, unknown>).tcompact;
  if (tc === null || typeof tc !== 'object') return undefined;
  const { restore, layers } = tc as Record<string, unknown>;
  if (typeof restore !== 'string' || !RefSchema.safeParse(restore).success) return undefined;
  return { restore, layers: typeof layers === 'number' && Number.isInteger(layers) && layers > 0 ? layers : 1 };
}

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Whether two transcripts serialize to the same JSON: then compaction changed nothing and the input is returned as it
 * was (so compacting a compacted archive again is byte-identical). Messages are compared by identity first, since
 * strategies return unchanged messages as the same objects.
 */
function sameTranscript(a: Transcript, b: Transcript): boolean {
  if (a === b) return true;
  const keys = Object.keys(a);
  const other = Object.keys(b);
  if (keys.length !== other.length || keys.some((k, i) => k !== other[i])) return false;
  for (const key of keys) {
    if (key !== 'messages') {
      if (!sameValue(a[key], b[key])) return false;
      continue;
    }
    if (a.messages.length !== b.messages.length) return false;
    if (!a.messages.every((m, i) => sameValue(m, b.messages[i]))) return false;
  }
  return true;
}

/**
 * Builds the recipe that turns `after` (once `withRestoreRef` has marked it) back into `before`, storing in `sink` every
 * message that did not survive as the same object, every changed field, and the recipe itself. Returns the recipe's ref.
 */
function storeRecipe(before: Transcript, after: Transcript, sink: RefSink): string {
  const positions = new Map<object, number[]>();
  after.messages.forEach((m, j) => {
    const list = positions.get(m);
    if (list) list.push(j);
    else positions.set(m, [j]);
  });
  const messages: RecipeEntry[] = [];
  let run: { keep: number; n: number } | undefined;
  const flush = () => {
    if (run) messages.push(run.n === 1 ? { keep: run.keep } : { keep: run.keep, n: run.n });
    run = undefined;
  };
  for (const m of before.messages) {
    const j = positions.get(m)?.shift();
    if (j === undefined) {
      flush();
      messages.push(storeMessage(m, sink));
    } else if (run && run.keep + run.n === j) {
      run.n++;
    } else {
      flush();
      run = { keep: j, n: 1 };
    }
  }
  flush();
  const fields: Record<string, string> = {};
  for (const key of Object.keys(before)) {
    if (key === 'messages') continue;
    // `metadata` always changes: withRestoreRef writes the recipe's ref into it.
    if (key !== 'metadata' && Object.hasOwn(after, key) && sameValue(before[key], after[key])) continue;
    fields[key] = sink.putJson(JSON.stringify(before[key]));
  }
  const recipe: Recipe = { v: 1, keys: Object.keys(before), messages, fields };
  return sink.putJson(JSON.stringify(recipe));
}

/** A message that did not survive, without what a strategy already stored of it (see {@link RecipeSchema}). */
function storeMessage(m: Message, sink: RefSink): RecipeEntry {
  const content = sink.storedRef(m.content);
  if (content !== undefined) return { ref: sink.putJson(JSON.stringify({ ...m, content: null })), content };
  const original: unknown = m.content;
  if (Array.isArray(original)) {
    let skeleton: unknown[] | undefined;
    const parts: Record<string, string> = {};
    original.forEach((part: unknown, i) => {
      const ref = sink.storedRef(part);
      if (ref === undefined) return;
      skeleton ??= original.slice();
      skeleton[i] = null;
      parts[i] = ref;
    });
    if (skeleton) return { ref: sink.putJson(JSON.stringify({ ...m, content: skeleton })), parts };
  }
  return { ref: sink.putJson(JSON.stringify(m)) };
}

/** `after` with `metadata.tcompact` pointing at the recipe; one more layer than `before` had. */
function withRestoreRef(before: Transcript, after: Transcript, recipeRef: string): Transcript {
  const layers = (tcompactMetadata(before)?.layers ?? 0) + 1;
  const metadata = after.metadata ?? {};
  const previous = metadata.tcompact !== null && typeof metadata.tcompact === 'object' ? (metadata.tcompact as Record<string, unknown>) : {};
  return { ...after, metadata: { ...metadata, tcompact: { ...previous, restore: recipeRef, layers } } };
}

/**
 * The output of a compaction as written: the input itself when nothing changed (so compacting again is
 * byte-identical), else the output with a restore layer (a recipe in `refs` that gives back the input exactly, named in
 * `metadata.tcompact.restore`); without refs, the output as is.
 */
export function finishCompaction(input: Transcript, output: Transcript, refs: RefSink | null): { transcript: Transcript; restore?: string } {
  if (sameTranscript(input, output)) return { transcript: input };
  if (!refs) return { transcript: output };
  const restore = storeRecipe(input, output, refs);
  return { transcript: withRestoreRef(input, output, restore), restore };
}
