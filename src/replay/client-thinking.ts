import { versionIn } from '../model/client-version.js';
import type { Message } from '../model/message.js';
import { keepsEarlierThinking } from '../provider/thinking-rules.js';

/**
 * What Claude Code did with the thinking of the turns before the last user prompt, by the client's version, as the
 * records show it: `strips` left it out of every request, `keeps` sent it back; a range absent here (unchecked, or
 * records that do both) falls back to the model's rule (provider/thinking-rules.ts).
 *
 * - 2.0.76–2.1.7 strips: the record's cache breaks at each new user turn, whatever the model
 *   (anthropics/claude-code#20249).
 * - 2.1.20–2.1.75 keeps: every checked turn reads the earlier thinking from the cache, whatever the model.
 * - 2.1.76–2.1.115 is mixed: a change shipped on 2026-03-26 cleared older thinking once after an hour idle, and a bug
 *   made it clear it at every later turn of the session; fixed on 2026-04-10, released with 2.1.116 (Anthropic's
 *   postmortem of 2026-04-23; #76253). 2.1.75 is the last release before the change; the records of 2.1.88 do both.
 * - 2.1.116 on keeps.
 */
const CLIENT_THINKING: readonly { from: string; to?: string; rule: 'strips' | 'keeps' }[] = [
  { from: '2.0.76', to: '2.1.7', rule: 'strips' },
  { from: '2.1.20', to: '2.1.75', rule: 'keeps' },
  { from: '2.1.116', rule: 'keeps' },
];

/** Whether the call of `reply` was sent without the earlier turns' thinking: by its client's version, else its model's rule. */
export function stripsEarlierThinking(reply: Message, model: string): boolean {
  const known = CLIENT_THINKING.find((r) => versionIn(reply.client_version, r.from, r.to));
  return known ? known.rule === 'strips' : !keepsEarlierThinking(model);
}

/** Whether the client's version, not the model's rule, decided what `reply`'s call sent of earlier thinking, and otherwise. */
export function clientOverridesModel(reply: Message, model: string): boolean {
  const known = CLIENT_THINKING.find((r) => versionIn(reply.client_version, r.from, r.to));
  return known !== undefined && (known.rule === 'strips') === keepsEarlierThinking(model);
}
