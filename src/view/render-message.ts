import type { ContentPart } from '../model/content.js';
import type { Message } from '../model/message.js';
import { escapeHtml } from '../report/html/escape.js';
import { int } from '../report/format.js';

/** Texts longer than this (characters or lines) are collapsed to their first line and size, opened on a click. */
const COLLAPSE_CHARS = 1200;
const COLLAPSE_LINES = 24;
/** Characters of the first line a collapsed text shows. */
const SUMMARY_CHARS = 110;

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(2)} MB`;
}

function lineCount(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** A text as it was, in a <pre>; a long one inside a closed <details> whose summary gives its first line and size. */
export function textBlock(text: string, label = ''): string {
  const lines = lineCount(text);
  if (text.length <= COLLAPSE_CHARS && lines <= COLLAPSE_LINES)
    return `${label === '' ? '' : `<div class="lbl">${escapeHtml(label)}</div>`}<pre>${escapeHtml(text)}</pre>`;
  const first = text.trimStart().split('\n', 1)[0];
  const head = first.length > SUMMARY_CHARS ? `${first.slice(0, SUMMARY_CHARS - 1)}…` : first;
  const size = `${formatBytes(Buffer.byteLength(text, 'utf8'))}, ${int(lines)} line${lines === 1 ? '' : 's'}`;
  return `<details><summary>${label === '' ? '' : `<span class="lbl">${escapeHtml(label)}</span> `}<span class="size">${size}</span> ${escapeHtml(head)}</summary><pre>${escapeHtml(text)}</pre></details>`;
}

/** An attachment as a line saying what it is and how large, never its payload. */
function attachmentLine(part: ContentPart): string {
  const describe = (kind: string, payload: string, name?: string) => {
    const inline = payload.startsWith('data:') || !/^[a-z]+:\/\//i.test(payload);
    const what = inline ? `${formatBytes(payload.length)} inline` : payload.length > SUMMARY_CHARS ? `${payload.slice(0, SUMMARY_CHARS)}…` : payload;
    return `<div class="att">[${kind}${name ? ` ${escapeHtml(name)}` : ''}: ${escapeHtml(what)}]</div>`;
  };
  if (part.type === 'image_url') return describe('image', part.image_url.url);
  if (part.type === 'file') return describe('file', part.file.file_data ?? part.file.file_id ?? '', part.file.filename);
  if (part.type === 'input_audio') return describe(`audio ${part.input_audio.format}`, part.input_audio.data);
  return '';
}

function contentHtml(content: unknown): string {
  if (content == null) return '';
  if (typeof content === 'string') return content.trim() === '' ? '' : textBlock(content);
  if (!Array.isArray(content)) return textBlock(JSON.stringify(content, null, 2));
  return (content as ContentPart[])
    .map((part) => {
      if (part.type === 'text') return part.text.trim() === '' ? '' : textBlock(part.text);
      if (part.type === 'refusal') return textBlock(part.refusal, 'refusal');
      return attachmentLine(part);
    })
    .join('');
}

/** The body of a message: its content, reasoning (always collapsed), tool calls with their arguments. */
function bodyHtml(m: Message): string {
  const r = m as Record<string, unknown>;
  if (!['system', 'developer', 'user', 'assistant', 'tool'].includes(m.role)) return textBlock(JSON.stringify(m, null, 2));
  let html = contentHtml(r.content);
  if (typeof r.refusal === 'string') html += textBlock(r.refusal, 'refusal');
  if (typeof r.reasoning_content === 'string') {
    const text = r.reasoning_content;
    html += `<details><summary><span class="lbl">reasoning</span> <span class="size">${formatBytes(Buffer.byteLength(text, 'utf8'))}</span></summary><pre>${escapeHtml(text)}</pre></details>`;
  }
  if (typeof r.redacted_thinking_blocks === 'number') html += `<div class="att">[${r.redacted_thinking_blocks} redacted thinking block(s)]</div>`;
  if (Array.isArray(r.tool_calls)) {
    for (const call of r.tool_calls as { id: string; function: { name: string; arguments: string } }[]) {
      html += `<div class="call">${textBlock(call.function.arguments, `→ ${call.function.name}`)}</div>`;
    }
  }
  return html;
}

export interface MessageLook {
  /** The element id (a link target). */
  id: string;
  /** Where the message stands in its transcript, from 0. */
  index: number;
  tokens: number;
  /** The tool that produced a result (from its call). */
  tool?: string;
  /** Extra class names and lines under the header (the probes lost here). */
  className?: string;
  notes?: readonly string[];
}

/** One message as an <article>: a header (index, role, tool, tokens) and its body. */
export function renderMessage(m: Message, look: MessageLook): string {
  const flags = (m as { is_error?: unknown }).is_error === true ? ' <span class="err">error</span>' : '';
  const tool = look.tool === undefined ? '' : ` · ${escapeHtml(look.tool)}`;
  const notes = (look.notes ?? []).map((n) => `<div class="note-lost">${n}</div>`).join('');
  return (
    `<article class="msg ${escapeHtml(m.role)}${look.className ? ` ${look.className}` : ''}" id="${look.id}">` +
    `<header><b>#${look.index}</b> ${escapeHtml(m.role)}${tool}${flags}<span class="tok">${int(look.tokens)} tok</span></header>` +
    `${notes}${bodyHtml(m)}</article>`
  );
}
