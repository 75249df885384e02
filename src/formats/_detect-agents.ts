import { isObject } from './_items.js';
import { isAmpThreadSignature } from './amp.js';
import { isClineSdkCompactionSignature, isClineSdkManifestSignature, isClineSdkSessionSignature } from './cline-sdk.js';
import { isCopilotEvent, isCopilotEventType, isCopilotLegacySignature } from './copilot.js';
import { isDroidRecord, isDroidSettingsSignature } from './droid.js';
import { isKimiMetadataSignature, isKimiRecord } from './kimi.js';
import { isKimiCodeRecord, isKimiCodeStateSignature } from './kimi-code.js';
import type { JsonSignature } from './_json-peek.js';
import { isStorageSessionPath } from './_opencode-storage.js';
import { isPiSessionHeader } from './_pi-entries.js';
import { isRooHistorySignature } from './_roo-messages.js';
import { schema, type Schema } from './_schema.js';
import type { FormatName } from './types.js';

/**
 * The schemas of the agent formats, as detection checks them (`detect.ts`). A new format is one `schema(...)` line:
 * its first rule names its own kind of record, the later ones what that record must hold, so that a look-alike (a
 * Qwen Code chat has Claude Code's record types and ids, a Continue session SWE-agent's `history`) fails on them.
 */

/** A JSON Lines record (an object). */
export type JsonRecord = Record<string, unknown>;
/** A whole-file JSON document: its name, and what its first record looks like. */
export interface JsonDocument {
  file: string;
  sig: JsonSignature;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const QWEN_TYPES = new Set(['user', 'assistant', 'tool_result', 'system']);

/**
 * JSON Lines formats whose files mix record types. Every record among a file's first lines is checked: the first must
 * hold the whole schema; a later one that is of the format's kind (its first rule holds) but fails a later rule rules
 * the format out; one of another kind is left to the reader (which keeps, skips or rejects it).
 */
export const AGENT_RECORD_SCHEMAS: readonly Schema<JsonRecord>[] = [
  // OpenClaw writes pi's format: `formatAt` names the files by where they lie.
  schema('pi', ['a pi session header ({type: "session", id, timestamp, cwd?, version?})', isPiSessionHeader]),
  schema('kimi', ['a Kimi CLI context or wire record (kimi.ts isKimiRecord)', isKimiRecord]),
  schema('kimi-code', ['a Kimi Code agent record (kimi-code.ts isKimiCodeRecord)', isKimiCodeRecord]),
  schema('droid', ['a Factory Droid record (droid.ts isDroidRecord)', isDroidRecord]),
  schema(
    'copilot',
    ['a GitHub Copilot CLI event type (a dotted name such as session.start or user.message, or abort)', (r: JsonRecord) => isCopilotEventType(r.type)],
    ['the event envelope: a data object, a string timestamp, a string id and a parentId (null for the first event) where recorded', isCopilotEvent],
  ),
  schema('gemini', [
    'a Gemini CLI recording header (sessionId and projectHash, no type)',
    (r) => r.type === undefined && isString(r.sessionId) && isString(r.projectHash),
  ]),
  schema('goose', [
    'a goose session header (working_dir, no type, no messages)',
    (r) => r.type === undefined && isString(r.working_dir) && r.messages === undefined,
  ]),
  schema('goose', [
    'a goose message (role, a numeric created, a content list, no type)',
    (r) => r.type === undefined && isString(r.role) && typeof r.created === 'number' && Array.isArray(r.content),
  ]),
  schema(
    'qwen',
    ['a Qwen Code record type (user, assistant, tool_result, system)', (r) => QWEN_TYPES.has(r.type as string)],
    [
      'string uuid and sessionId, and a parentUuid (null at the root)',
      (r) => isString(r.uuid) && isString(r.sessionId) && (r.parentUuid === null || isString(r.parentUuid)),
    ],
    ['a Gemini Content message ({role, parts}) when one is recorded', (r) => r.message === undefined || Array.isArray(messageOf(r)?.parts)],
  ),
];

/**
 * Whole-file JSON formats, checked on the document's first record (`peekJson`): the root object, or the first element
 * of a root array.
 */
export const AGENT_DOCUMENT_SCHEMAS: readonly Schema<JsonDocument>[] = [
  schema('gemini', ['a root object with sessionId and projectHash', ({ sig }) => sig.root === 'object' && has(sig, 'sessionId', 'projectHash')]),
  schema('gemini-checkpoint', [
    'a root object with clientHistory, or toolCall and commitHash',
    ({ sig }) => sig.root === 'object' && (has(sig, 'clientHistory') || has(sig, 'toolCall', 'commitHash')),
  ]),
  // A checkpoint whose display history is too long for its next keys to be seen.
  schema('gemini-checkpoint', [
    'a history in a checkpoints folder',
    ({ file, sig }) => sig.root === 'object' && has(sig, 'history') && /[\\/]checkpoints[\\/][^\\/]+\.json$/i.test(file),
  ]),
  schema(
    'opencode',
    ['an OpenCode export (info and messages)', ({ sig }) => sig.root === 'object' && has(sig, 'info', 'messages')],
    ['messages whose records carry sessionID', ({ sig }) => sig.allKeys.has('sessionID')],
  ),
  schema(
    'opencode',
    [
      'a session of OpenCode storage (id and projectID, no messages)',
      ({ sig }) => sig.root === 'object' && has(sig, 'id', 'projectID') && !has(sig, 'messages'),
    ],
    ['in a session/<project>/ folder', ({ file }) => isStorageSessionPath(file)],
  ),
  schema(
    'continue',
    ['a Continue session (sessionId and history)', ({ sig }) => sig.root === 'object' && has(sig, 'sessionId', 'history')],
    ['a title or workspaceDirectory', ({ sig }) => has(sig, 'title') || has(sig, 'workspaceDirectory')],
    ['history items that are steps ({message, contextItems}), not messages', ({ sig }) => sig.allKeys.has('contextItems') || !sig.allKeys.has('role')],
  ),
  schema('goose', ['a goose session (working_dir and conversation)', ({ sig }) => sig.root === 'object' && has(sig, 'working_dir', 'conversation')]),
  schema('amp', ['an Amp thread (amp.ts isAmpThreadSignature)', ({ sig }) => sig.root === 'object' && isAmpThreadSignature(sig)]),
  schema('copilot', [
    'a legacy GitHub Copilot CLI session (sessionId and chatMessages, with startTime or timeline)',
    ({ sig }) => isCopilotLegacySignature(sig),
  ]),
  schema('droid', ["a Factory Droid session's settings", ({ file, sig }) => sig.root === 'object' && isDroidSettingsSignature(file, sig)]),
  schema('kimi', [
    "Kimi CLI's kimi.json (its projects' folders; skipped by the reader)",
    ({ file, sig }) => sig.root === 'object' && isKimiMetadataSignature(file, sig),
  ]),
  schema('kimi-code', [
    "a Kimi Code session's state.json (its agents; skipped by the reader)",
    ({ file, sig }) => sig.root === 'object' && isKimiCodeStateSignature(file, sig),
  ]),
  schema('cline-sdk', [
    "a Cline SDK session's messages (version, sessionId, messages, with updated_at or agent)",
    ({ sig }) => isClineSdkSessionSignature(sig),
  ]),
  schema('cline-sdk', [
    "a Cline SDK session's compaction state (version, source_message_count, messages; read with its messages, skipped alone)",
    ({ sig }) => isClineSdkCompactionSignature(sig),
  ]),
  schema('cline-sdk', [
    "a Cline SDK session's manifest (session_id, started_at, messages_path; skipped by the reader)",
    ({ sig }) => isClineSdkManifestSignature(sig),
  ]),
  schema('cline', ['named api_conversation_history.json', ({ file }) => /(^|[\\/])api_conversation_history\.json$/i.test(file)]),
  schema('cline', ["Cline's UI log, named ui_messages.json (a usage-only session)", ({ file }) => /(^|[\\/])ui_messages\.json$/i.test(file)]),
  schema(
    'cline',
    [
      "Roo Code's versioned history (an object of version and messages alone)",
      ({ sig }) => sig.root === 'object' && sig.keys.length === 2 && has(sig, 'version', 'messages'),
    ],
    ["messages with a role and Roo's ts", ({ sig }) => isRooHistorySignature(sig)],
  ),
  schema(
    'cline',
    ['an array of messages', ({ sig }) => sig.root === 'array' && sig.first === 'object' && has(sig, 'role')],
    ['carrying ts, modelInfo or metrics', ({ sig }) => ['ts', 'modelInfo', 'metrics'].some((k) => sig.keys.includes(k))],
  ),
];

/** Whether the first record has every key named. */
export function has(sig: JsonSignature, ...keys: string[]): boolean {
  return keys.every((k) => sig.keys.includes(k));
}

/** A record's `message` when it is an object. */
export function messageOf(r: JsonRecord): JsonRecord | undefined {
  return isObject(r.message) ? r.message : undefined;
}

/** OpenClaw's session files: `agents/<agent>/sessions/<id>.jsonl`, and the archives `<id>.jsonl.reset.<time>`, `.deleted.`. */
const OPENCLAW_SESSION = /([\\/]agents[\\/][^\\/]+[\\/]sessions[\\/][^\\/]+$)|(\.jsonl\.(reset|deleted)\.[^\\/]+$)/i;

/** The format a file of `format`'s schema is read as where it lies: pi's files are OpenClaw's where OpenClaw keeps them. */
export function formatAt(file: string, format: FormatName): FormatName {
  return format === 'pi' && OPENCLAW_SESSION.test(file) ? 'openclaw' : format;
}
