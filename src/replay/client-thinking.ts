import { versionIn } from '../model/client-version.js';
import type { Message } from '../model/message.js';
import { keepsEarlierThinking } from '../provider/thinking-rules.js';

/**
 * Whether the call of `reply` was sent without the thinking of the turns before the last user prompt: by the client's
 * version where the client decided it, else by the model's rule (provider/thinking-rules.ts). Claude Code 2.0.76 to
 * 2.1.7 left earlier thinking out of every request (the record's cache breaks at each new user turn, whatever the
 * model); from 2.1.20 it sends it back and the record reads it from the cache at every checked turn, whatever the
 * model (anthropics/claude-code#20249). Between them, and before, the records are mixed or unchecked: the model's rule.
 */
export function stripsEarlierThinking(reply: Message, model: string): boolean {
  const version = reply.client_version;
  if (versionIn(version, '2.0.76', '2.1.7')) return true;
  if (versionIn(version, '2.1.20')) return false;
  return !keepsEarlierThinking(model);
}
