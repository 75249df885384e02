/**
 * Real-text mode of the archive generator: a large canonical archive whose transcripts have the shapes of real ones
 * (roles, tool calls, sizes) and whose texts are spliced from segments of many different real texts. The synthetic
 * generator's vocabulary is far easier to tokenize than agent output (gpt-tokenizer counts it at 19.6 MB/s,
 * real strings at 7.2), and the real corpus alone is too small to time a pipeline on.
 *
 * Each output text has the length of the text it replaces and is cut from random places of the pool of real texts of
 * the same kind (tool results from tool results, arguments' string values from arguments, ...), so no counted text of
 * 64+ characters repeats verbatim and the token cache cannot make the comparison easy. Same templates and options ->
 * byte-identical output. Tool definitions are kept as they are (they repeat in real archives too).
 */
import { open } from 'node:fs/promises';
import { Rng, deriveSeed } from './generate.js';

/** Bumped whenever the output for given templates and options changes. */
export const REAL_TEXT_GENERATOR_VERSION = 2;

export interface RealTextOptions {
  seed: number;
  /** The archive stops once it reaches this many bytes (the last transcript is whole, so it may go over). */
  targetBytes: number;
  /** @default 'realtext' */
  idPrefix?: string;
}

/** The parts of a canonical transcript the generator reads; any canonical transcript fits. */
export interface TemplateTranscript {
  messages: readonly Record<string, unknown>[];
  tools?: readonly unknown[];
  metadata?: Record<string, unknown>;
}

type Kind = 'system' | 'user' | 'assistant' | 'reasoning' | 'tool' | 'arguments';

/** A segment is at most this long, so a long text mixes several sources. */
const SEGMENT_MIN = 64;
const SEGMENT_MAX = 1024;

/** Every real text of one kind, addressable by a character position over all of them. */
class Pool {
  private readonly texts: string[] = [];
  private readonly ends: number[] = [];
  private chars = 0;

  add(text: string): void {
    if (text.length === 0) return;
    this.texts.push(text);
    this.chars += text.length;
    this.ends.push(this.chars);
  }

  get size(): number {
    return this.chars;
  }

  /** A text of `length` characters cut from random places of the pool. */
  splice(rng: Rng, length: number): string {
    let out = '';
    while (out.length < length) {
      const want = Math.min(length - out.length, rng.int(SEGMENT_MIN, SEGMENT_MAX));
      const at = Math.floor(rng.next() * this.chars);
      const i = upperBound(this.ends, at);
      const text = this.texts[i];
      // Cut where the position falls, up to the text's end: clamping the start back to fit `want` would make the tail
      // window of every short text far likelier than any other piece, and two texts would repeat it verbatim.
      let start = at - (i === 0 ? 0 : this.ends[i - 1]);
      let end = Math.min(text.length, start + want);
      // Never split a surrogate pair: a lone half would be a text no real transcript has.
      if (isLow(text.charCodeAt(start)) && start > 0) start--;
      if (end < text.length && isLow(text.charCodeAt(end))) end++;
      out += text.slice(start, end);
    }
    return out.length > length && isLow(out.charCodeAt(length)) ? out.slice(0, length + 1) : out.slice(0, length);
  }
}

const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

function upperBound(ends: readonly number[], at: number): number {
  let lo = 0;
  let hi = ends.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ends[mid] > at) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

function kindOf(role: unknown): Kind | null {
  if (role === 'system' || role === 'developer') return 'system';
  if (role === 'user' || role === 'assistant' || role === 'tool') return role;
  return null;
}

/** Calls `visit` on every text of a message that tcompact counts, with a setter that replaces it. */
function eachText(m: Record<string, unknown>, visit: (kind: Kind, text: string, set: (t: string) => void) => void): void {
  const kind = kindOf(m.role);
  if (kind === null) return;
  if (typeof m.content === 'string') visit(kind, m.content, (t) => (m.content = t));
  else if (Array.isArray(m.content)) {
    for (const part of m.content as Record<string, unknown>[]) {
      if (part.type === 'text' && typeof part.text === 'string') visit(kind, part.text, (t) => (part.text = t));
    }
  }
  if (typeof m.reasoning_content === 'string') visit('reasoning', m.reasoning_content, (t) => (m.reasoning_content = t));
  if (Array.isArray(m.tool_calls)) {
    for (const call of m.tool_calls as { function?: { arguments?: unknown } }[]) {
      const fn = call.function;
      if (fn && typeof fn.arguments === 'string') visit('arguments', fn.arguments, (t) => (fn.arguments = t));
    }
  }
}

/** The string values of a tool call's JSON arguments (or the whole text when it is not JSON). */
function argumentStrings(args: string, visit: (s: string) => void): void {
  const walk = (v: unknown): void => {
    if (typeof v === 'string') visit(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') Object.values(v).forEach(walk);
  };
  try {
    walk(JSON.parse(args));
  } catch {
    visit(args);
  }
}

function replaceArgumentStrings(args: string, replace: (s: string) => string): string {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return replace(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    return replace(args);
  }
  return JSON.stringify(walk(parsed));
}

function buildPools(templates: readonly TemplateTranscript[]): Map<Kind, Pool> {
  const pools = new Map<Kind, Pool>();
  const pool = (k: Kind) => {
    let p = pools.get(k);
    if (!p) pools.set(k, (p = new Pool()));
    return p;
  };
  for (const t of templates) {
    for (const m of t.messages) {
      eachText(m, (kind, text) => {
        if (kind === 'arguments') argumentStrings(text, (s) => pool('arguments').add(s));
        else pool(kind).add(text);
      });
    }
  }
  return pools;
}

/** Yields the archive's lines (without `\n`). */
export function* generateRealTextArchive(templates: readonly TemplateTranscript[], options: RealTextOptions): Generator<string> {
  if (templates.length === 0) throw new Error('real-text generator: no template transcripts');
  const pools = buildPools(templates);
  const any = [...pools.values()].sort((a, b) => b.size - a.size)[0];
  const prefix = options.idPrefix ?? 'realtext';
  let total = 0;
  for (let index = 0; total < options.targetBytes; index++) {
    const rng = new Rng(deriveSeed(options.seed, index));
    const template = rng.pick(templates);
    const splice = (kind: Kind, text: string) => (text.length === 0 ? text : (pools.get(kind) ?? any).splice(rng, text.length));
    const messages = structuredClone(template.messages) as Record<string, unknown>[];
    for (const m of messages) {
      eachText(m, (kind, text, set) => set(kind === 'arguments' ? replaceArgumentStrings(text, (s) => splice('arguments', s)) : splice(kind, text)));
    }
    const transcript: Record<string, unknown> = { id: `${prefix}-${options.seed}-${index}`, messages };
    if (template.tools && template.tools.length > 0) transcript.tools = template.tools;
    const line = JSON.stringify(transcript);
    total += Buffer.byteLength(line) + 1;
    yield line;
  }
}

/** Streams the archive to a file in large writes; returns its size in bytes and its number of transcripts. */
export async function writeRealTextArchive(
  path: string,
  templates: readonly TemplateTranscript[],
  options: RealTextOptions,
): Promise<{ bytes: number; transcripts: number }> {
  const handle = await open(path, 'w');
  let bytes = 0;
  let transcripts = 0;
  let pending: string[] = [];
  let pendingLength = 0;
  const flush = async () => {
    const buffer = Buffer.from(pending.join(''));
    let offset = 0;
    while (offset < buffer.length) offset += (await handle.write(buffer, offset)).bytesWritten;
    bytes += buffer.length;
    pending = [];
    pendingLength = 0;
  };
  try {
    for (const line of generateRealTextArchive(templates, options)) {
      pending.push(line, '\n');
      pendingLength += line.length;
      transcripts++;
      if (pendingLength >= 8 * 1024 * 1024) await flush();
    }
    if (pending.length > 0) await flush();
  } finally {
    await handle.close();
  }
  return { bytes, transcripts };
}
