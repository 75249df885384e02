/**
 * Hand-written checks that accept exactly the values the transcript schemas accept, or fewer: parse.ts runs the zod
 * schema only when a quick check says no, so valid input never pays for zod (a few ms per MB) and invalid input still
 * gets zod's exact message. A quick check must never accept what its schema rejects (a property test holds them side by
 * side); rejecting more only costs time.
 */

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const optString = (v: unknown): boolean => v === undefined || typeof v === 'string';
const nonEmptyString = (v: unknown): boolean => typeof v === 'string' && v.length > 0;

function isTextPart(p: unknown): boolean {
  return isObject(p) && p.type === 'text' && typeof p.text === 'string';
}

function isContentPart(p: unknown): boolean {
  if (!isObject(p)) return false;
  switch (p.type) {
    case 'text':
      return typeof p.text === 'string';
    case 'image_url':
      return isObject(p.image_url) && typeof p.image_url.url === 'string' && optString(p.image_url.detail);
    case 'file':
      return isObject(p.file) && optString(p.file.file_data) && optString(p.file.file_id) && optString(p.file.filename);
    case 'input_audio':
      return isObject(p.input_audio) && typeof p.input_audio.data === 'string' && typeof p.input_audio.format === 'string';
    case 'refusal':
      return typeof p.refusal === 'string';
    default:
      return false;
  }
}

const every = (v: unknown, check: (x: unknown) => boolean): boolean => Array.isArray(v) && v.every(check);

function isToolCall(c: unknown): boolean {
  return (
    isObject(c) &&
    nonEmptyString(c.id) &&
    c.type === 'function' &&
    isObject(c.function) &&
    typeof c.function.name === 'string' &&
    typeof c.function.arguments === 'string'
  );
}

const optBoolean = (v: unknown): boolean => v === undefined || typeof v === 'boolean';

/** The schema of a message whose role is known (message.ts), checked by hand. */
export function quickCheckMessage(m: Obj): boolean {
  if (!optString(m.name) || !(m.timestamp === undefined || typeof m.timestamp === 'string' || typeof m.timestamp === 'number')) return false;
  switch (m.role) {
    case 'system':
    case 'developer':
      return typeof m.content === 'string' || every(m.content, isTextPart);
    case 'user':
      return (typeof m.content === 'string' || every(m.content, isContentPart)) && optBoolean(m.is_compact_summary) && optBoolean(m.is_meta);
    case 'assistant':
      return (
        (m.content === undefined ||
          m.content === null ||
          typeof m.content === 'string' ||
          every(m.content, (p) => isTextPart(p) || (isObject(p) && p.type === 'refusal' && typeof p.refusal === 'string'))) &&
        (m.tool_calls === undefined || every(m.tool_calls, isToolCall)) &&
        optString(m.reasoning_content) &&
        (m.refusal === undefined || m.refusal === null || typeof m.refusal === 'string') &&
        optString(m.model) &&
        (m.usage === undefined || isObject(m.usage))
      );
    case 'tool':
      return nonEmptyString(m.tool_call_id) && (typeof m.content === 'string' || every(m.content, isContentPart)) && optBoolean(m.is_error);
    default:
      return false;
  }
}

function isToolDef(t: unknown): boolean {
  return (
    isObject(t) &&
    t.type === 'function' &&
    isObject(t.function) &&
    typeof t.function.name === 'string' &&
    optString(t.function.description) &&
    (t.function.parameters === undefined || isObject(t.function.parameters))
  );
}

/** The transcript envelope (transcript.ts), checked by hand: id, messages with a string role, tools, metadata. */
export function quickCheckEnvelope(v: unknown): v is Obj & { messages: Obj[] } {
  return (
    isObject(v) &&
    nonEmptyString(v.id) &&
    every(v.messages, (m) => isObject(m) && typeof m.role === 'string') &&
    (v.tools === undefined || every(v.tools, isToolDef)) &&
    (v.metadata === undefined || isObject(v.metadata))
  );
}
