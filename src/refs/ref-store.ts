import { hash } from 'node:crypto';
import type { Message } from '../model/message.js';
import { REF_LENGTH } from '../model/ref.js';
import type { Transcript } from '../model/transcript.js';
import { LocatorReader, type RefPath, formatRefLine, layerLineParts, locatorLine, splitPiecePath } from './ref-file.js';

/** Length of a short reference in hex characters (64 bits of SHA-256: collisions need ~4e9 distinct pieces). */
export { REF_LENGTH };

/** The short reference of `data`: text (hashed as its UTF-8 bytes) or those bytes themselves. */
export function refOf(data: string | Uint8Array): string {
  // The one-shot hash: half the time of createHash().update().digest() on the short pieces a strategy stores.
  return hash('sha256', data, 'hex').slice(0, REF_LENGTH);
}

/** The ref of a piece of a stored layer input: derived from the layer's ref and the piece's path, not its content. */
export function locatorRef(layer: string, path: RefPath): string {
  return refOf(`${layer}/${path.join('/')}`);
}

/** One side-store entry as a sink holds it. */
export type SinkEntry =
  /** JSON text (what strategies store); refs.jsonl embeds it as it is. */
  | { kind: 'json'; text: string }
  /** Text that is not JSON, stored as a JSON string. */
  | { kind: 'data'; text: string }
  /** The whole input of a compaction as JSON: the bytes of its input line when the reader had them. */
  | { kind: 'layer'; text: string | Uint8Array }
  /** A piece of a stored layer input, named by its path in it. */
  | { kind: 'at'; layer: string; path: RefPath };

/** A piece a strategy may replace: its ref now (for the placeholder), stored only when `keep` is called. */
export interface PendingRef {
  readonly ref: string;
  keep(): void;
}

/** The input of one compaction: its messages' places (message to index), built when a strategy first asks for one. */
interface Layer {
  transcript: Transcript;
  source?: string | Uint8Array;
  ref?: string;
  places?: Map<object, number>;
}

/**
 * Collects what compaction replaced or removed, keyed by short refs. The input of each compaction that changed a
 * transcript is stored whole, once (from its input line's own bytes when the reader kept them, so nothing is
 * serialized again); what a strategy replaces is then named by where it sits in that input (a locator) whenever it is
 * the input's own, unchanged piece, and stored by content otherwise. A sink is filled inside a worker and its entries
 * travel back with the shard; `--no-refs` passes no sink at all.
 */
export class RefSink {
  readonly entries = new Map<string, SinkEntry>();
  private readonly sources = new WeakMap<Transcript, string | Uint8Array>();
  private readonly layers = new WeakMap<Transcript, Layer>();
  private current: Layer | undefined;
  private readonly inputs = new LocatorReader();

  /**
   * Gives the exact JSON text of `transcript` (its input line, as text or UTF-8 bytes) so that storing it as a layer
   * input costs no serialization. The text must parse to `transcript`.
   */
  withSource(transcript: Transcript, source: string | Uint8Array): void {
    this.sources.set(transcript, source);
  }

  /** Marks `input` as the transcript now being compacted: its own pieces are then stored as locators into it. */
  enterLayer(input: Transcript): void {
    this.current = this.layerOf(input);
  }

  /**
   * Forgets `input`'s source and layer once its compaction is finished (what it stored stays). A WeakMap entry would
   * free them too, but only at a major GC: until then its value, the layer, keeps the whole parsed input alive through
   * every minor GC, which then copies it and promotes it. Dropping it here lets the input die young, as it does without
   * a side store.
   */
  leaveLayer(input: Transcript): void {
    this.sources.delete(input);
    this.layers.delete(input);
    if (this.current?.transcript === input) this.current = undefined;
  }

  private layerOf(t: Transcript): Layer {
    let layer = this.layers.get(t);
    if (!layer) {
      layer = { transcript: t, source: this.sources.get(t) };
      this.layers.set(t, layer);
    }
    return layer;
  }

  private layerRef(layer: Layer): string {
    if (layer.ref === undefined) {
      layer.source ??= JSON.stringify(layer.transcript);
      layer.ref = refOf(layer.source);
    }
    return layer.ref;
  }

  /** Stores `input` whole (once) as a layer input and returns its ref. */
  storeLayer(input: Transcript): string {
    const layer = this.layerOf(input);
    const ref = this.layerRef(layer);
    if (!this.entries.has(ref)) this.entries.set(ref, { kind: 'layer', text: layer.source! });
    return ref;
  }

  /** Stores a locator of `path` in the stored layer input `input` and returns its ref. */
  storeLocator(input: Transcript, path: RefPath): string {
    const layer = this.storeLayer(input);
    return this.keepLocator(layer, locatorRef(layer, path), path);
  }

  /** Stores the locator `ref` (`locatorRef(layer, path)`, already hashed) of `path` in the layer input `input`. */
  private keepLocator(layer: string, ref: string, path: RefPath): string {
    if (!this.entries.has(ref)) this.entries.set(ref, { kind: 'at', layer, path });
    return ref;
  }

  /**
   * The piece at `within` of message `m`: a locator when `m` is one of the messages of the input now being compacted
   * (as it was read, so the piece is there), else its JSON by content.
   */
  private pending(m: Message, within: RefPath, value: unknown): PendingRef {
    const layer = this.current;
    if (layer && !layer.places) {
      const places = new Map<object, number>();
      layer.transcript.messages.forEach((message, i) => {
        if (!places.has(message)) places.set(message, i);
      });
      layer.places = places;
    }
    const index = layer?.places?.get(m);
    if (layer && index !== undefined) {
      const path = ['messages', index, ...within];
      const ref = locatorRef(this.layerRef(layer), path);
      return { ref, keep: () => void this.keepLocator(this.storeLayer(layer.transcript), ref, path) };
    }
    const json = JSON.stringify(value);
    const ref = refOf(json);
    return { ref, keep: () => void this.putJson(json, ref) };
  }

  /** The content of message `m`, which a strategy is about to replace. */
  contentRef(m: Message): PendingRef {
    return this.pending(m, ['content'], m.content);
  }

  /** Part `part` of message `m`'s content array, which a strategy is about to replace. */
  partRef(m: Message, part: number): PendingRef {
    return this.pending(m, ['content', part], (m.content as unknown[])[part]);
  }

  /**
   * Stores `data` and returns its short reference; storing the same data twice returns the same reference. `ref`, when
   * the caller already hashed `data`, must be `refOf(data)`.
   */
  put(data: string, ref = refOf(data)): string {
    if (!this.entries.has(ref)) this.entries.set(ref, { kind: 'data', text: data });
    return ref;
  }

  /** {@link put} for data that is JSON text (`JSON.stringify`'s output), which the side store file keeps unescaped. */
  putJson(json: string, ref = refOf(json)): string {
    if (!this.entries.has(ref)) this.entries.set(ref, { kind: 'json', text: json });
    return ref;
  }

  /**
   * Every entry as refs.jsonl lines, in order of first appearance: strings, and the bytes of stored input lines as they
   * were read (each between the two strings of its line), for the caller to write without encoding or copying them.
   * With `known`, refs in it are left out and those written are added to it.
   */
  chunks(known?: Set<string>): (string | Uint8Array)[] {
    const out: (string | Uint8Array)[] = [];
    let text = '';
    for (const [ref, entry] of this.entries) {
      if (known) {
        if (known.has(ref)) continue;
        known.add(ref);
      }
      if (entry.kind === 'at') text += locatorLine(ref, entry.layer, entry.path);
      else if (entry.kind !== 'layer') text += formatRefLine(ref, entry.text, entry.kind === 'json');
      else if (typeof entry.text === 'string') text += formatRefLine(ref, entry.text, true);
      else {
        const [head, tail] = layerLineParts(ref);
        out.push(text + head, entry.text);
        text = tail;
      }
    }
    if (text !== '') out.push(text);
    return out;
  }

  /** {@link chunks} as one string. */
  lines(): string {
    return this.chunks()
      .map((c) => (typeof c === 'string' ? c : Buffer.from(c.buffer, c.byteOffset, c.byteLength).toString('utf8')))
      .join('');
  }

  /** The stored data of `ref`: a locator's piece is read from its layer input. */
  get(ref: string): string | undefined {
    const piece = splitPiecePath(ref);
    const entry = piece ? ({ kind: 'at', layer: piece.ref, path: piece.path } as const) : this.entries.get(ref);
    if (entry === undefined) return undefined;
    if (entry.kind !== 'at') return typeof entry.text === 'string' ? entry.text : Buffer.from(entry.text).toString('utf8');
    return this.inputs.read(entry.layer, entry.path, () => (this.entries.get(entry.layer)?.kind === 'layer' ? this.get(entry.layer) : undefined));
  }
}
