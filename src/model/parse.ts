import type { z } from 'zod';
import { type Outcome, TcompactError, fail, ok } from '../errors.js';
import { knownMessageSchemas, isKnownRole, type Message } from './message.js';
import { transcriptEnvelopeSchema, type Transcript } from './transcript.js';
import { quickCheckEnvelope, quickCheckMessage } from './quick-check.js';

export interface ParsedTranscript {
  transcript: Transcript;
  /** Non-fatal findings, such as messages with an unknown role that were passed through. */
  warnings: string[];
}

/**
 * Validates a configuration value at the boundary: the parsed data, or E_CONFIG naming every bad path, prefixed by
 * `path` (e.g. `options.auto.hardLimit: ...`) and by `source: ` (the file, `command line`, `llm`).
 */
export function parseConfig<S extends z.ZodType>(schema: S, value: unknown, at: { path?: PropertyKey[]; source?: string } = {}): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = formatIssues(parsed.error.issues, at.path);
  throw new TcompactError('E_CONFIG', at.source === undefined ? issues : `${at.source}: ${issues}`);
}

/** Formats zod issues as one line: `messages[3].content: Invalid input; ...`. */
export function formatIssues(issues: readonly z.core.$ZodIssue[], prefix: PropertyKey[] = []): string {
  return issues
    .map((issue) => {
      const path = formatPath([...prefix, ...issue.path]);
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join('; ');
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

/**
 * Validates one canonical transcript. Messages with a known role are checked against their schema; messages with an
 * unknown role are kept as they are, with a warning. The schemas only check (no defaults, no transforms), so the
 * result is the input value itself: unknown fields and the key order of every object are kept, which is what lets
 * `restore` give back the input byte for byte.
 */
export function parseTranscript(value: unknown): Outcome<ParsedTranscript> {
  if (!quickCheckEnvelope(value)) {
    const envelope = transcriptEnvelopeSchema().safeParse(value);
    if (!envelope.success) return fail('E_SCHEMA', formatIssues(envelope.error.issues));
  }
  const warnings: string[] = [];
  const messages: Message[] = [];
  // zod's output objects put known keys first: take the input's own objects once they are valid.
  const raw = (value as { messages: Message[] }).messages;
  for (let i = 0; i < raw.length; i++) {
    const message = raw[i];
    if (!isKnownRole(message.role)) {
      warnings.push(`messages[${i}]: unknown role "${message.role}" passed through unchanged`);
      messages.push(message);
      continue;
    }
    if (!quickCheckMessage(message as unknown as Record<string, unknown>)) {
      const parsed = knownMessageSchemas()[message.role].safeParse(message);
      if (!parsed.success) return fail('E_SCHEMA', formatIssues(parsed.error.issues, ['messages', i]));
    }
    messages.push(message as Message);
  }
  return ok({ transcript: { ...(value as object), messages } as Transcript, warnings });
}
