import { type Outcome, fail, ok } from '../errors.js';
import { formatIssues } from '../model/parse.js';
import type { Transcript } from '../model/transcript.js';
import { type Recipe, type RecipeV1, recipeSchema, tcompactMetadata } from './recipe.js';
import { piecePath } from './ref-file.js';
import { refOf } from './ref-store.js';

/** Where restore looks refs up: a `RefSink`, the `SideStore` that `readRefFile` returns, or any Map of ref to data. */
export interface RefLookup {
  get(ref: string): string | undefined;
}

/** More layers than any real chain of compactions; guards against a recipe that points back at itself. */
const MAX_LAYERS = 1000;

class RestoreError extends Error {}

function load(refs: RefLookup, ref: string, what: string): string {
  const data = refs.get(ref);
  if (data === undefined) throw new RestoreError(`${what}: ref ${ref} is missing from the side store`);
  if (refOf(data) !== ref) throw new RestoreError(`${what}: the side store entry for ref ${ref} does not match its content`);
  return data;
}

function loadMessage(refs: RefLookup, entry: Extract<RecipeV1['messages'][number], { ref: string }>): unknown {
  const message: unknown = JSON.parse(load(refs, entry.ref, 'message'));
  if (entry.content === undefined && entry.parts === undefined) return message;
  const m = message as { content?: unknown } | null;
  if (m === null || typeof m !== 'object' || !Object.hasOwn(m, 'content')) throw new RestoreError(`message ${entry.ref} has no content to fill in`);
  if (entry.content !== undefined) m.content = JSON.parse(load(refs, entry.content, 'message content'));
  for (const [index, ref] of Object.entries(entry.parts ?? {})) {
    if (!Array.isArray(m.content) || Number(index) >= m.content.length) throw new RestoreError(`message ${entry.ref} has no content part ${index}`);
    m.content[Number(index)] = JSON.parse(load(refs, ref, 'message content part'));
  }
  return message;
}

function undoLayerV1(t: Transcript, recipe: RecipeV1, refs: RefLookup): Transcript {
  const messages: unknown[] = [];
  for (const entry of recipe.messages) {
    if ('ref' in entry) {
      messages.push(loadMessage(refs, entry));
      continue;
    }
    const n = entry.n ?? 1;
    if (entry.keep + n > t.messages.length)
      throw new RestoreError(`recipe keeps messages ${entry.keep}..${entry.keep + n - 1} but the transcript has ${t.messages.length}`);
    for (let j = entry.keep; j < entry.keep + n; j++) messages.push(t.messages[j]);
  }
  const out: Record<string, unknown> = {};
  for (const key of recipe.keys) {
    if (key === 'messages') out.messages = messages;
    else if (Object.hasOwn(recipe.fields, key)) out[key] = JSON.parse(load(refs, recipe.fields[key], `field "${key}"`));
    else out[key] = t[key];
  }
  return out as Transcript;
}

/** Checks that every message the recipe keeps is there in the compacted transcript. */
function checkKept(t: Transcript, recipe: Recipe): void {
  for (const entry of recipe.messages) {
    if (!('keep' in entry)) continue;
    const n = entry.n ?? 1;
    if (entry.keep + n > t.messages.length)
      throw new RestoreError(`recipe keeps messages ${entry.keep}..${entry.keep + n - 1} but the transcript has ${t.messages.length}`);
  }
}

function undoLayer(t: Transcript, recipe: Recipe, refs: RefLookup): Transcript {
  if (recipe.v === 1) return undoLayerV1(t, recipe, refs);
  checkKept(t, recipe);
  const input: unknown = JSON.parse(load(refs, recipe.input, 'layer input'));
  if (input === null || typeof input !== 'object' || !Array.isArray((input as Transcript).messages)) {
    throw new RestoreError(`layer input ${recipe.input} is not a transcript`);
  }
  return input as Transcript;
}

/**
 * Where a message of the original went: `kept` at this index of the compacted transcript, unchanged, or `stored` in
 * the side store under this ref: `REF/messages/N`, message N of the stored input of the compaction that replaced,
 * changed or removed it (in a version 1 side store, the ref of the message itself).
 */
export type MessageFate = { kept: number } | { stored: string };

/** Each message before one layer, in order, as its recipe records it. */
function fatesOf(recipe: Recipe): MessageFate[] {
  const out: MessageFate[] = [];
  for (const entry of recipe.messages) {
    if ('ref' in entry) out.push({ stored: entry.ref });
    // A message gone in a version 2 layer is read from the stored input, by its index there.
    else if ('gone' in entry)
      for (let k = 0; k < entry.gone; k++) out.push({ stored: piecePath(recipe.v === 2 ? recipe.input : '', ['messages', out.length]) });
    else for (let j = entry.keep; j < entry.keep + (entry.n ?? 1); j++) out.push({ kept: j });
  }
  return out;
}

/** Undoes every layer, newest first; `onLayer` sees each recipe in that order. */
function undoAll(t: Transcript, refs: RefLookup, onLayer: (recipe: Recipe) => void): Outcome<Transcript> {
  let current = t;
  try {
    for (let layer = 0; ; layer++) {
      const meta = tcompactMetadata(current);
      if (!meta) return ok(current);
      if (layer >= MAX_LAYERS) throw new RestoreError(`more than ${MAX_LAYERS} layers of compaction`);
      const parsed = recipeSchema().safeParse(JSON.parse(load(refs, meta.restore, 'restore recipe')));
      if (!parsed.success) throw new RestoreError(`restore recipe ${meta.restore} is malformed: ${formatIssues(parsed.error.issues)}`);
      onLayer(parsed.data);
      current = undoLayer(current, parsed.data, refs);
    }
  } catch (err) {
    if (err instanceof RestoreError) return fail('E_REF', `transcript "${t.id}": ${err.message}`);
    throw err;
  }
}

/**
 * The exact inverse of compaction: undoes each layer recorded in `metadata.tcompact.restore`, newest first, until the
 * transcript as it was first read. A transcript tcompact never changed comes back as the same object. Fails with
 * `E_REF` (naming the transcript) when a ref is missing or its stored content does not hash to it.
 */
export function restoreTranscript(t: Transcript, refs: RefLookup): Outcome<Transcript> {
  return undoAll(t, refs, () => undefined);
}

/**
 * {@link restoreTranscript}, and the fate of each message of the original through every layer: kept (where it is now)
 * or stored (the ref of the layer that replaced it). A transcript tcompact never changed keeps every message in place.
 */
export function restoreWithFates(t: Transcript, refs: RefLookup): Outcome<{ transcript: Transcript; fates: MessageFate[] }> {
  const layers: Recipe[] = [];
  const restored = undoAll(t, refs, (recipe) => layers.push(recipe));
  if (!restored.ok) return restored;
  let fates: MessageFate[] = restored.value.messages.map((_, i) => ({ kept: i }));
  // The oldest layer first: a message kept by it is at that index of the next layer's input, and so on to `t`.
  for (const recipe of layers.reverse()) {
    // undoLayer checked every kept index against the messages of the layer's output.
    const next = fatesOf(recipe);
    fates = fates.map((f) => ('kept' in f ? next[f.kept] : f));
  }
  return ok({ transcript: restored.value, fates });
}
