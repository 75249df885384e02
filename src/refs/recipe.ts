import * as z from 'zod';
import { onFirstUse } from '../on-first-use.js';
import type { Transcript } from '../model/transcript.js';
import { REF_LENGTH, type RefSink } from './ref-store.js';

const refSchema = onFirstUse(() => z.string().regex(new RegExp(`^[0-9a-f]{${REF_LENGTH}}$`)));

/** The restore recipe's schemas, built on first use: only `restore` reads a recipe back. */
const recipeSchemas = onFirstUse(() => {
  const ref = refSchema();
  const KeepSchema = z.strictObject({ keep: z.number().int().min(0), n: z.number().int().min(2).optional() });

  /**
   * How to rebuild the transcript as it was before one compaction (one "layer") from the transcript after it. Stored in
   * the side store as JSON; its ref is in the compacted transcript's `metadata.tcompact.restore`.
   *
   * Version 2 stores the layer's input whole (`input`, from the input line's own bytes when the reader had them), so
   * nothing of it is serialized again; `messages` only maps each input message to where it went, for views.
   */
  const RecipeV2Schema = z.strictObject({
    v: z.literal(2),
    /** Ref of the layer's input, whole. */
    input: ref,
    /**
     * Each message of the input, in order: `{keep, n}` is a run of `n` (default 1) messages that survived as they were,
     * at `keep`, `keep + 1`, ... in the compacted transcript; `{gone: n}` a run of `n` that did not (they are in the
     * stored input, at their index there).
     */
    messages: z.array(z.union([KeepSchema, z.strictObject({ gone: z.number().int().min(1) })])),
  });

  /** Version 1, which stored each message that did not survive and each changed field; still read. */
  const RecipeV1Schema = z.strictObject({
    v: z.literal(1),
    /** The top-level keys of the transcript before compaction, in their order. */
    keys: z.array(z.string()),
    /**
     * Each message before compaction, in order: `{keep, n}` as in version 2; `{ref}` is a message stored in the side
     * store. A strategy that replaced a message's content (or some of its parts) already stored it: then `{ref}` is the
     * message with that content (or those parts) set to null, and `content` (or `parts`, by index) gives the stored
     * value's ref.
     */
    messages: z.array(
      z.union([
        KeepSchema,
        z.strictObject({
          ref,
          content: ref.optional(),
          parts: z.record(z.string().regex(/^(0|[1-9][0-9]*)$/), ref).optional(),
        }),
      ]),
    ),
    /** Top-level fields (other than `messages`) whose value changed: their JSON in the side store. */
    fields: z.record(z.string(), ref),
  });
  return { v1: RecipeV1Schema, v2: RecipeV2Schema, recipe: z.discriminatedUnion('v', [RecipeV1Schema, RecipeV2Schema]) };
});
type Schemas = ReturnType<typeof recipeSchemas>;

export const recipeSchema = (): Schemas['recipe'] => recipeSchemas().recipe;
export type Recipe = z.infer<Schemas['recipe']>;
export type RecipeV1 = z.infer<Schemas['v1']>;
type RecipeV2 = z.infer<Schemas['v2']>;

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
  if (typeof restore !== 'string' || !refSchema().safeParse(restore).success) return undefined;
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
 * Stores in `sink` the input of this compaction whole and a recipe that maps each of its messages to where it went
 * (kept at an index of `after`, or gone: then only the stored input holds it); returns the recipe's ref.
 */
function storeRecipe(before: Transcript, after: Transcript, sink: RefSink): string {
  const positions = new Map<object, number[]>();
  after.messages.forEach((m, j) => {
    const list = positions.get(m);
    if (list) list.push(j);
    else positions.set(m, [j]);
  });
  const input = sink.storeLayer(before);
  const messages: RecipeV2['messages'] = [];
  let run: { keep: number; n: number } | undefined;
  let gone = 0;
  const flush = () => {
    if (run) messages.push(run.n === 1 ? { keep: run.keep } : { keep: run.keep, n: run.n });
    if (gone > 0) messages.push({ gone });
    run = undefined;
    gone = 0;
  };
  for (const m of before.messages) {
    const j = positions.get(m)?.shift();
    if (j === undefined) {
      if (run) flush();
      gone++;
    } else if (run && run.keep + run.n === j) {
      run.n++;
    } else {
      flush();
      run = { keep: j, n: 1 };
    }
  }
  flush();
  const recipe: RecipeV2 = { v: 2, input, messages };
  return sink.putJson(JSON.stringify(recipe));
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
  if (sameTranscript(input, output)) {
    refs?.leaveLayer(input);
    return { transcript: input };
  }
  if (!refs) return { transcript: output };
  const restore = storeRecipe(input, output, refs);
  refs.leaveLayer(input);
  return { transcript: withRestoreRef(input, output, restore), restore };
}
