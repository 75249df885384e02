import type { AssistantMessage, Message } from '../model/message.js';
import { firstInvalidUtf8, readLines } from '../io/line-reader.js';
import { type AiderBlock, AiderBlockReader } from './_aider-blocks.js';
import { baseName, errorItem, finishTranscript, skippedItem } from './_items.js';
import type { InputItem, ReadOptions, SourcePosition } from './types.js';

/** The line aider writes when a session starts (aider/io.py), followed by the local time. */
export const AIDER_SESSION_HEADER = /^# aider chat started at (.*)$/;
/** An editor mode line (`-*- mode: fundamental -*-`), which an Emacs user may put first: not part of a session. */
const MODE_LINE = /^-\*-.*-\*-\s*$/;
/** Commands whose text aider sends to the model as the user's request: their turn is a user message, not a call. */
const REQUEST_COMMANDS = new Set(['ask', 'code', 'architect', 'context']);
const COMMAND = /^\/([a-z][\w-]*)(?:[ \t]+|$)/;

/**
 * aider's Markdown chat history (`.aider.chat.history.md`), one transcript per session (`# aider chat started at`),
 * id `<file base>#<header line>`; lines before the first header (a history whose start was cut) are a session too.
 * - `#### ` user input -> a user message; a command (`/run`, `/add`, `/test`...) -> an assistant message marked
 *   `aider_command` whose tool call is the command (name without the slash, arguments `{"args": ...}`), answered by
 *   the `>` output right after it (none shown: the pairing repair fills it and counts it). `/ask`, `/code`,
 *   `/architect`, `/context` and `/help <question>` carry a request to the model: user messages.
 * - the model's reply -> an assistant message; `Tokens: N sent, M received` in the output after it -> its `usage`
 *   (`input_tokens`, `output_tokens`; aider rounds counts of 1,000 and more to `1.2k`).
 * - other `>` output (start-up banner, applied edits, commits, lint results) -> a system message named `aider`.
 * Each line is a unit: the session's transcript accounts for its lines; a line that is not UTF-8 or too long is an
 * error of its own and the session goes on without it.
 */
export async function* readAider(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  let session: SessionDraft | undefined;
  let first = true;
  const base = baseName(file);
  for await (const raw of readLines(file, { maxLineBytes: options.maxLineBytes })) {
    const at: SourcePosition = { file, line: raw.line, byteOffset: raw.byteOffset };
    const decoded = decode(raw.bytes, raw.byteOffset === 0);
    if (decoded.kind === 'error') {
      yield errorItem(
        at,
        decoded.code,
        decoded.code === 'E_LINE_TOO_LONG' ? `line is ${raw.byteLength} bytes, over --max-line-bytes ${options.maxLineBytes}` : decoded.message,
      );
      continue;
    }
    const text = decoded.text;
    const header = AIDER_SESSION_HEADER.exec(text);
    if (header) {
      if (session) yield* finishSession(session);
      session = new SessionDraft(`${base}#${raw.line}`, at, header[1].trim());
      first = false;
      continue;
    }
    if (first && MODE_LINE.test(text)) {
      first = false;
      yield skippedItem(at, 'record:mode-line');
      continue;
    }
    first = false;
    session ??= new SessionDraft(`${base}#${raw.line}`, at, undefined);
    session.add(text, at);
  }
  if (session) yield* finishSession(session);
}

/** How many lines of a Markdown file detection reads for an aider session header. */
const HEADER_SEARCH_LINES = 200;

/**
 * Whether a Markdown file is an aider chat history: a session header among its first lines (a history whose start was
 * cut begins inside a session).
 */
export async function isAiderHistory(file: string, options: ReadOptions): Promise<boolean> {
  for await (const raw of readLines(file, { maxLineBytes: options.maxLineBytes })) {
    if (raw.bytes !== null && AIDER_SESSION_HEADER.test(raw.bytes.toString('utf8').replace(/\r$/, ''))) return true;
    if (raw.line >= HEADER_SEARCH_LINES) return false;
  }
  return false;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

type Decoded = { kind: 'text'; text: string } | { kind: 'error'; code: 'E_UTF8' | 'E_LINE_TOO_LONG'; message: string };

function decode(bytes: Buffer | null, fileStart: boolean): Decoded {
  if (bytes === null) return { kind: 'error', code: 'E_LINE_TOO_LONG', message: '' };
  let b = bytes;
  if (fileStart && b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) b = b.subarray(3);
  if (b.length > 0 && b[b.length - 1] === 13) b = b.subarray(0, b.length - 1);
  try {
    return { kind: 'text', text: utf8.decode(b) };
  } catch {
    return { kind: 'error', code: 'E_UTF8', message: `invalid UTF-8 at byte ${firstInvalidUtf8(b)} of the line` };
  }
}

class SessionDraft {
  readonly reader = new AiderBlockReader();
  /** Lines of the session read as text (the header included); blank-only sessions are skipped line by line. */
  readonly lines: { at: SourcePosition; blank: boolean }[] = [];

  constructor(
    readonly id: string,
    readonly at: SourcePosition,
    readonly startedAt: string | undefined,
  ) {
    if (startedAt !== undefined) this.lines.push({ at, blank: false });
  }

  add(text: string, at: SourcePosition): void {
    this.lines.push({ at, blank: text.trim() === '' });
    this.reader.add(text, at.line);
  }
}

function* finishSession(session: SessionDraft): Generator<InputItem> {
  const blocks = session.reader.finish();
  if (blocks.length === 0) {
    for (const l of session.lines) yield skippedItem(l.at, l.blank ? 'blank' : 'record:aider/empty-session');
    return;
  }
  const { messages, calls } = toMessages(blocks);
  const metadata: Record<string, unknown> = { source: { format: 'aider', file: session.at.file } };
  if (session.startedAt !== undefined) metadata.startedAt = session.startedAt;
  Object.assign(metadata, bannerFacts(blocks));
  if (calls > 0) metadata.commands = calls;
  const warnings = session.startedAt === undefined ? ['the file starts inside a session: no "# aider chat started at" header'] : [];
  yield finishTranscript({ id: session.id, messages, metadata, warnings }, session.at, session.lines.length);
}

function toMessages(blocks: readonly AiderBlock[]): { messages: Message[]; calls: number } {
  const messages: Message[] = [];
  let calls = 0;
  let awaiting: { id: string; name: string } | undefined;
  let lastReply: AssistantMessage | undefined;
  for (const block of blocks) {
    if (block.kind === 'output') {
      if (awaiting) {
        messages.push({ role: 'tool', tool_call_id: awaiting.id, name: awaiting.name, content: block.text });
      } else {
        if (lastReply) {
          const usage = tokenUsage(block.text);
          if (usage) lastReply.usage = usage;
        }
        messages.push({ role: 'system', name: 'aider', content: block.text } as Message);
      }
      awaiting = undefined;
      lastReply = undefined;
      continue;
    }
    awaiting = undefined;
    lastReply = undefined;
    if (block.kind === 'reply') {
      const reply: AssistantMessage = { role: 'assistant', content: block.text };
      messages.push(reply);
      lastReply = reply;
      continue;
    }
    const command = COMMAND.exec(block.text);
    if (!command || REQUEST_COMMANDS.has(command[1]) || (command[1] === 'help' && block.text.slice(command[0].length).trim() !== '')) {
      messages.push({ role: 'user', content: block.text });
      continue;
    }
    const id = `aider_L${block.line}`;
    calls++;
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id, type: 'function', function: { name: command[1], arguments: JSON.stringify({ args: block.text.slice(command[0].length) }) } }],
      aider_command: true,
    } as AssistantMessage);
    awaiting = { id, name: command[1] };
  }
  return { messages, calls };
}

/** aider's token report: `Tokens: 5,244 sent, 604 received.` (counts over 1,000 may be rounded: `12k`, `4.3k`). */
const TOKENS = /^Tokens: ([\d.,]+k?) sent,.*? ([\d.,]+k?) received[.,]/m;

function tokenUsage(text: string): { input_tokens: number; output_tokens: number } | undefined {
  const m = TOKENS.exec(text);
  if (!m) return undefined;
  return { input_tokens: tokenCount(m[1]), output_tokens: tokenCount(m[2]) };
}

function tokenCount(s: string): number {
  const k = s.endsWith('k');
  const n = Number(s.replace(/[,k]/g, ''));
  return k ? Math.round(n * 1000) : n;
}

/** The aider version and model from the start-up banner (`Aider v0.47.2`, `Model:` / `Models:` / `Main model:`). */
function bannerFacts(blocks: readonly AiderBlock[]): Record<string, unknown> {
  const first = blocks[0];
  if (first?.kind !== 'output') return {};
  const out: Record<string, unknown> = {};
  const version = /^Aider (v\S+)/m.exec(first.text);
  if (version) out.aiderVersion = version[1];
  const model = /^(?:Main model|Models?): (\S+)/m.exec(first.text);
  if (model) out.models = [model[1]];
  return out;
}
