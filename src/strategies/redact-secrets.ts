import * as z from 'zod';
import { TcompactError } from '../errors.js';
import type { Message } from '../model/message.js';
import { type FindSecrets, loadedDetector } from '../secrets/loaded-detector.js';
import { replaceSecrets } from '../secrets/replace.js';
import { withMessages } from './_edit.js';
import type { Strategy } from './types.js';

const RedactSecretsConfigSchema = z.strictObject({
  /** Kinds left as they are (`aws-access-key-id`, `url-password`...: docs/strategies.md lists them). @default [] */
  except: z.array(z.string()).default([]),
});

/** Fields that name or pair things rather than say them: a placeholder there would break pairing or roles. */
const STRUCTURAL = new Set(['role', 'id', 'tool_call_id', 'type']);

/** Redacts `value` (a message or a part of one), returning it as the same object when nothing in it changed. */
function redactValue(value: unknown, find: FindSecrets, except: ReadonlySet<string>, found: Record<string, number>): unknown {
  if (typeof value === 'string') {
    const matches = find(value).filter((m) => !except.has(m.kind));
    if (matches.length === 0) return value;
    for (const m of matches) found[m.kind] = (found[m.kind] ?? 0) + 1;
    return replaceSecrets(value, matches);
  }
  if (Array.isArray(value)) {
    const next = value.map((v) => redactValue(v, find, except, found));
    return next.some((v, i) => v !== value[i]) ? next : value;
  }
  if (value === null || typeof value !== 'object') return value;
  let next: Record<string, unknown> | undefined;
  for (const [key, v] of Object.entries(value)) {
    if (STRUCTURAL.has(key)) continue;
    const r = redactValue(v, find, except, found);
    if (r === v) continue;
    next ??= { ...(value as Record<string, unknown>) };
    next[key] = r;
  }
  return next ?? value;
}

/**
 * The scan, loaded by `prepare` or by anything else in this thread (the main thread's masking of shared outputs loads
 * it). A direct `apply` with neither is an error rather than a silent pass: a transcript with its secrets left in
 * must never come out looking redacted.
 */
function detector(): FindSecrets {
  const find = loadedDetector();
  if (find) return find;
  throw new TcompactError('E_NOT_PREPARED', 'redact-secrets: the secret rules are not loaded in this thread: await its prepare() before apply()');
}

/**
 * Replaces every secret the scan finds (src/secrets: secretlint's recommended rules and tcompact's) in every message,
 * content, parts, tool arguments and reasoning alike, with `[secret: KIND]`. The original message goes to the side
 * store with the restore recipe, as for any changed message, so `restore` gives the input back byte for byte; the
 * compacted archive alone holds no secret the scan knows. Runs over the whole transcript: a secret in the kept turns is
 * as much a secret.
 */
export const redactSecrets: Strategy<typeof RedactSecretsConfigSchema> = {
  name: 'redact-secrets',
  summary: 'replace API keys, tokens, private keys and URL passwords with [secret: KIND] (originals in the side store)',
  config: RedactSecretsConfigSchema,
  async prepare() {
    await import('../secrets/detector.js');
  },
  apply(transcript, config) {
    const find = detector();
    const except = new Set(config.except);
    const found: Record<string, number> = {};
    let messagesChanged = 0;
    const out = transcript.messages.map((m) => {
      const next = redactValue(m, find, except, found) as Message;
      if (next !== m) messagesChanged++;
      return next;
    });
    const secrets = Object.values(found).reduce((a, b) => a + b, 0);
    return {
      transcript: messagesChanged > 0 ? withMessages(transcript, out) : transcript,
      messagesChanged,
      messagesRemoved: 0,
      details: secrets > 0 ? { secrets, ...Object.fromEntries(Object.entries(found).map(([k, n]) => [`secret:${k}`, n])) } : {},
    };
  },
};
