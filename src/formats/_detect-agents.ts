import { isObject } from './_items.js';
import { isAmpThreadSignature } from './amp.js';
import { isDroidRecord, isDroidSettingsSignature } from './droid.js';
import { isKimiMetadataSignature, isKimiRecord } from './kimi.js';
import type { JsonSignature } from './_json-peek.js';
import { isStorageSessionPath } from './_opencode-storage.js';
import type { FormatName } from './types.js';

/**
 * Detection of the agent formats whose records look like others' at first sight (a Gemini CLI recording has
 * `messages`, a Cline history is an array of Anthropic messages): checked before the generic rules.
 */

/**
 * A JSON Lines record: the metadata line of a Gemini CLI recording (`sessionId` and `projectHash`, no `type`); the
 * metadata line of a goose session (`working_dir`), or a goose message (`role`, a numeric `created`, a `content` list);
 * a Kimi CLI context or wire record (see isKimiRecord); a Factory Droid record (see isDroidRecord).
 */
export function agentFormatOfRecord(value: unknown): FormatName | undefined {
  if (isKimiRecord(value)) return 'kimi';
  if (isDroidRecord(value)) return 'droid';
  if (!isObject(value) || value.type !== undefined) return undefined;
  if (typeof value.sessionId === 'string' && typeof value.projectHash === 'string') return 'gemini';
  if (typeof value.working_dir === 'string' && value.messages === undefined) return 'goose';
  if (typeof value.role === 'string' && typeof value.created === 'number' && Array.isArray(value.content)) return 'goose';
  return undefined;
}

/**
 * A whole-file JSON document: a Gemini CLI recording (`sessionId` and `projectHash`), a Gemini CLI checkpoint
 * (`clientHistory`, or `history` in a `checkpoints` folder when the display history is too long for its next keys to
 * be seen), or a Cline/Roo history (named `api_conversation_history.json`, or messages carrying `ts`, `modelInfo` or
 * `metrics`), an OpenCode export (`info` and `messages` whose records carry `sessionID`) or a session of OpenCode's
 * JSON storage (`id` and `projectID` in a `session/<project>/` folder), or a goose session
 * (`working_dir` and `conversation`), an Amp thread (see isAmpThreadSignature), or a Factory Droid session's settings
 * (see isDroidSettingsSignature).
 */
export function agentFormatOfJson(file: string, sig: JsonSignature): FormatName | undefined {
  const keys = new Set(sig.keys);
  if (sig.root === 'object') {
    if (keys.has('sessionId') && keys.has('projectHash')) return 'gemini';
    if (keys.has('clientHistory') || (keys.has('toolCall') && keys.has('commitHash'))) return 'gemini-checkpoint';
    if (keys.has('info') && keys.has('messages') && sig.allKeys.has('sessionID')) return 'opencode';
    if (keys.has('id') && keys.has('projectID') && !keys.has('messages') && isStorageSessionPath(file)) return 'opencode';
    if (keys.has('working_dir') && keys.has('conversation')) return 'goose';
    if (isAmpThreadSignature(sig)) return 'amp';
    if (isDroidSettingsSignature(file, sig)) return 'droid';
    if (isKimiMetadataSignature(file, sig)) return 'kimi';
    if (keys.has('history') && /[\\/]checkpoints[\\/][^\\/]+\.json$/i.test(file)) return 'gemini-checkpoint';
  }
  if (/(^|[\\/])api_conversation_history\.json$/i.test(file)) return 'cline';
  if (sig.root === 'array') {
    if (sig.first === 'object' && keys.has('role') && (keys.has('ts') || keys.has('modelInfo') || keys.has('metrics'))) return 'cline';
  }
  return undefined;
}
