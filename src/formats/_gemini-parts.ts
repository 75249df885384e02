import type { ContentPart } from '../model/content.js';
import { isObject } from './_items.js';

/**
 * Gemini API content (`@google/genai` `Part` / `PartListUnion`) as canonical content. Shared by the Gemini CLI chat
 * recordings and checkpoints, which both store what the CLI sent to or got from the model as parts:
 * `{text, thought?}`, `{functionCall: {id?, name, args}}`, `{functionResponse: {id, name, response}}`,
 * `{inlineData: {mimeType, data}}`, `{fileData: {mimeType, fileUri}}`.
 */

/** A `PartListUnion` (a string, one part, or a list of strings and parts) as a list of part objects. */
export function partList(value: unknown): Record<string, unknown>[] {
  const list = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  return list.map((p) => (typeof p === 'string' ? { text: p } : isObject(p) ? p : { text: JSON.stringify(p) }));
}

/** A function response part's payload. */
export interface FunctionResponse {
  id: string | undefined;
  name: string | undefined;
  /** What the model was given: `response.output`, `response.error`, or the whole response as JSON. */
  text: string;
  /** The tool answered with `response.error`. */
  isError: boolean;
}

export function functionResponseOf(part: Record<string, unknown>): FunctionResponse | undefined {
  const fr = part.functionResponse;
  if (!isObject(fr)) return undefined;
  const response = fr.response;
  let text: string;
  let isError = false;
  if (isObject(response) && typeof response.error === 'string' && response.output === undefined) {
    text = response.error;
    isError = true;
  } else if (isObject(response) && typeof response.output === 'string' && Object.keys(response).length === 1) text = response.output;
  else text = JSON.stringify(response ?? null);
  return { id: typeof fr.id === 'string' && fr.id !== '' ? fr.id : undefined, name: typeof fr.name === 'string' ? fr.name : undefined, text, isError };
}

/**
 * Non-call parts as canonical content parts: text (thought parts excluded: see `thoughtText`), images as data URLs,
 * files as `file` parts; anything else (executable code, its result) as its JSON text so nothing is lost.
 */
export function contentParts(parts: readonly Record<string, unknown>[]): ContentPart[] {
  const out: ContentPart[] = [];
  for (const part of parts) {
    if (part.functionCall !== undefined || part.functionResponse !== undefined || part.thought === true) continue;
    if (typeof part.text === 'string') out.push({ type: 'text', text: part.text });
    else if (isObject(part.inlineData) && typeof part.inlineData.data === 'string') {
      const mime = typeof part.inlineData.mimeType === 'string' ? part.inlineData.mimeType : 'application/octet-stream';
      const url = `data:${mime};base64,${part.inlineData.data}`;
      out.push(mime.startsWith('image/') ? { type: 'image_url', image_url: { url } } : { type: 'file', file: { file_data: url } });
    } else if (isObject(part.fileData) && typeof part.fileData.fileUri === 'string') out.push({ type: 'text', text: part.fileData.fileUri });
    else out.push({ type: 'text', text: JSON.stringify(part) });
  }
  return out;
}

/** The text of thought parts (`{text, thought: true}`), joined by a blank line; undefined when there is none. */
export function thoughtText(parts: readonly Record<string, unknown>[]): string | undefined {
  const texts = parts.filter((p) => p.thought === true && typeof p.text === 'string' && p.text !== '').map((p) => p.text as string);
  return texts.length > 0 ? texts.join('\n\n') : undefined;
}

/** Canonical content from parts: one text part becomes a string, several stay parts. */
export function collapse(parts: ContentPart[]): string | ContentPart[] {
  return parts.length === 1 && parts[0].type === 'text' ? parts[0].text : parts;
}

/**
 * Gemini usage (`usageMetadata`, recorded by the CLI as `{input, output, cached, thoughts, tool, total}`) in the
 * OpenAI field names `recordedUsage` reads: `input_tokens` is the whole prompt (Gemini's prompt count includes the
 * cached part, as OpenAI's does) plus the tool-use prompt; `output_tokens` includes the thoughts, which Gemini bills as
 * output but counts apart from the candidates.
 */
export function geminiUsage(tokens: Record<string, unknown>): Record<string, number> {
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const usage: Record<string, number> = {
    input_tokens: n(tokens.input) + n(tokens.tool),
    cached_input_tokens: n(tokens.cached),
    output_tokens: n(tokens.output) + n(tokens.thoughts),
  };
  if (tokens.thoughts !== undefined) usage.reasoning_output_tokens = n(tokens.thoughts);
  if (tokens.total !== undefined) usage.total_tokens = n(tokens.total);
  return usage;
}
