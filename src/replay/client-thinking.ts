import { versionIn } from '../model/client-version.js';
import type { Message } from '../model/message.js';
import { timestampMs } from '../model/recorded.js';
import { keepsEarlierThinking } from '../provider/thinking-rules.js';

/**
 * What Claude Code did with the thinking of the turns before the last user prompt, by the client's version: `strips`
 * left it out of every request, `keeps` sent it back; a range absent here (unchecked) falls back to the model's rule
 * (provider/thinking-rules.ts).
 *
 * - 2.0.76–2.1.7 strips: the record's cache breaks at each new user turn, whatever the model
 *   (anthropics/claude-code#20249).
 * - 2.1.20–2.1.75 keeps: every checked turn reads the earlier thinking from the cache, whatever the model.
 * - 2.1.76 on, a session idle for more than an hour had its older thinking cleared (the `clear_thinking_20251015`
 *   context edit with `keep: 1`), meant once, on the request that ends the idle spell; a bug cleared it again on every
 *   later request of the session, until the fix of 2026-04-10, released with 2.1.101 (Anthropic's postmortem of
 *   2026-04-23; anthropics/claude-code#76253). So 2.1.76–2.1.100 keeps until the first idle hour, then strips on every
 *   call (`strips-from-idle`); 2.1.101–2.1.115 strips on the calls that end an idle hour only (`strips-after-idle`).
 *   2.1.75 is the last release before the change; the records of 2.1.88 do both.
 * - 2.1.116 on keeps.
 */
type ClientRule = 'strips' | 'keeps' | 'strips-from-idle' | 'strips-after-idle';

const CLIENT_THINKING: readonly { from: string; to?: string; rule: ClientRule }[] = [
  { from: '2.0.76', to: '2.1.7', rule: 'strips' },
  { from: '2.1.20', to: '2.1.75', rule: 'keeps' },
  { from: '2.1.76', to: '2.1.100', rule: 'strips-from-idle' },
  { from: '2.1.101', to: '2.1.115', rule: 'strips-after-idle' },
  { from: '2.1.116', rule: 'keeps' },
];

/** How long a session waited before a call, as the client's idle rule reads it. */
export interface IdleBefore {
  /** The call ends a wait of more than an hour since the session's previous call. */
  endsIdle: boolean;
  /** The session waited more than an hour at this call or at an earlier one. */
  idledBefore: boolean;
}

const NOT_IDLE: IdleBefore = { endsIdle: false, idledBefore: false };
const IDLE_MS = 60 * 60 * 1000;

/**
 * The idle spells before each reply of a conversation (see IdleBefore): the wait from the previous reply to the last
 * message logged before this one (the prompt or tool result that sent it), by the records' timestamps.
 */
export function idleBefore(messages: readonly Message[]): (reply: Message) => IdleBefore {
  const out = new Map<Message, IdleBefore>();
  let lastReplyAt: number | undefined;
  let lastSeenAt: number | undefined;
  let idled = false;
  for (const m of messages) {
    const at = timestampMs(m);
    if (m.role === 'assistant') {
      const endsIdle = lastReplyAt !== undefined && lastSeenAt !== undefined && lastSeenAt - lastReplyAt > IDLE_MS;
      idled ||= endsIdle;
      if (endsIdle || idled) out.set(m, { endsIdle, idledBefore: idled });
      if (at !== undefined) lastReplyAt = at;
    }
    if (at !== undefined) lastSeenAt = at;
  }
  return (reply) => out.get(reply) ?? NOT_IDLE;
}

/** Whether the call of `reply` was sent without the earlier turns' thinking: by its client's version, else its model's rule. */
export function stripsEarlierThinking(reply: Message, model: string, idle: IdleBefore = NOT_IDLE): boolean {
  const rule = clientRule(reply);
  if (rule === undefined) return !keepsEarlierThinking(model);
  if (rule === 'strips-from-idle') return idle.idledBefore;
  if (rule === 'strips-after-idle') return idle.endsIdle;
  return rule === 'strips';
}

/** Whether the client's version, not the model's rule, decided what `reply`'s call sent of earlier thinking, and otherwise. */
export function clientOverridesModel(reply: Message, model: string, idle: IdleBefore = NOT_IDLE): boolean {
  return clientRule(reply) !== undefined && stripsEarlierThinking(reply, model, idle) === keepsEarlierThinking(model);
}

function clientRule(reply: Message): ClientRule | undefined {
  return CLIENT_THINKING.find((r) => versionIn(reply.client_version, r.from, r.to))?.rule;
}
