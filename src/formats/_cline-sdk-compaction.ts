import { isObject } from './_items.js';

/**
 * The working context Cline's SDK keeps beside a session (`<id>.compaction.json`, cline sdk/packages/core/src/session/
 * models/session-compaction.ts `SessionCompactionState`): after a compaction the session sends `messages` in place of
 * the first `source_message_count` messages of its transcript, then the transcript's messages from there on
 * (`projectSessionCompactionState`). The transcript itself is never rewritten; each compaction replaces the sidecar,
 * so only the latest one is on disk.
 */
export interface SdkCompactionState {
  sourceMessageCount: number;
  messages: readonly Record<string, unknown>[];
  updatedAt?: string;
  /** `id:<message id>` (or `ts:`/`content:`) of the last transcript message it replaced. */
  lastMessageKey?: string;
}

/** The sidecar as the SDK's schema reads it (version 1), or why it is not one. */
export function parseCompactionState(value: unknown): SdkCompactionState | string {
  if (!isObject(value) || value.version !== 1) return 'not a version 1 compaction state';
  const count = value.source_message_count;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) return 'source_message_count is not a count';
  if (!Array.isArray(value.messages) || !value.messages.every((m) => isObject(m) && (m.role === 'user' || m.role === 'assistant')))
    return 'messages: expected user and assistant messages';
  return {
    sourceMessageCount: count,
    messages: value.messages as Record<string, unknown>[],
    ...(typeof value.updated_at === 'string' ? { updatedAt: value.updated_at } : {}),
    ...(typeof value.source_last_message_key === 'string' ? { lastMessageKey: value.source_last_message_key } : {}),
  };
}

/**
 * Why the SDK would not project the state onto these transcript messages, or undefined when it would: the transcript
 * must hold the messages it replaced, the last of them the one its key names. (The SDK also checks a hash of their
 * normalised content, which is not recomputed here.)
 */
export function staleReason(state: SdkCompactionState, source: readonly unknown[]): string | undefined {
  if (state.sourceMessageCount > source.length) return `it replaces ${state.sourceMessageCount} messages, the transcript holds ${source.length}`;
  const key = state.lastMessageKey;
  if (key === undefined || !key.startsWith('id:') || state.sourceMessageCount === 0) return undefined;
  const last = source[state.sourceMessageCount - 1];
  const id = isObject(last) && typeof last.id === 'string' ? last.id.trim() : undefined;
  return id === key.slice(3) ? undefined : `its last replaced message is ${key.slice(3)}, the transcript's is ${id ?? 'without an id'}`;
}

/** How many of the state's first messages are the transcript's own first messages, as written (same id and content). */
export function keptHeadLength(state: SdkCompactionState, source: readonly unknown[]): number {
  let n = 0;
  while (n < state.messages.length && n < state.sourceMessageCount && sameMessage(state.messages[n], source[n])) n++;
  return n;
}

function sameMessage(a: Record<string, unknown>, b: unknown): boolean {
  return isObject(b) && a.id === b.id && a.role === b.role && JSON.stringify(a.content) === JSON.stringify(b.content);
}
