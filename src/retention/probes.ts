import { parseArguments } from '../io/canonical-json.js';
import { type Message, type ToolMessage, isRole } from '../model/message.js';
import { describeToolCall, type ToolAction } from '../model/tool-semantics.js';
import type { Transcript } from '../model/transcript.js';
import { keyPhrases } from './key-phrases.js';
import { collapseWhitespace, normalizeCommand, normalizeProbePath } from './normalize.js';
import { requestText } from './requests.js';
import { errorLine, isFailedResult } from '../model/tool-outcome.js';

export const PROBE_KINDS = ['artifact', 'command', 'error', 'intent', 'task'] as const;
export type ProbeKind = (typeof PROBE_KINDS)[number];

type FileActionKind = 'read' | 'write' | 'edit';

/** One fact the original transcript lets a model know, which a compacted one should still carry. */
export type Probe =
  | {
      kind: 'artifact';
      /** Normalized path (see normalize.ts). */
      path: string;
      /** Every spelling the tool calls used for it, whitespace collapsed, in order of first use. */
      spellings: string[];
      /** What successful calls did to the file, in order of first occurrence. */
      actions: FileActionKind[];
    }
  | { kind: 'command'; command: string; runs: number; failed: boolean }
  | { kind: 'error'; line: string; tool: string; resolved: boolean }
  | {
      kind: 'intent';
      text: string;
      /** `phrases`: one probe per distinct request, matched by key-phrase overlap; `verbatim`: the last request. */
      match: 'phrases' | 'verbatim';
    }
  | { kind: 'task'; content: string; status: string };

/** Todo statuses that close an item: closed items are not open tasks. */
const CLOSED_STATUSES = new Set(['completed', 'complete', 'done', 'cancelled', 'canceled']);

interface Call {
  name: string;
  argumentsJson: string;
  action: ToolAction;
  result: ToolMessage | undefined;
  failed: boolean;
}

function callsInOrder(messages: readonly Message[]): Call[] {
  const results = new Map<string, ToolMessage>();
  for (const m of messages) if (isRole(m, 'tool') && !results.has(m.tool_call_id)) results.set(m.tool_call_id, m);
  const calls: Call[] = [];
  for (const m of messages) {
    if (!isRole(m, 'assistant') || !m.tool_calls) continue;
    for (const call of m.tool_calls) {
      const result = results.get(call.id);
      calls.push({
        name: call.function.name,
        argumentsJson: call.function.arguments,
        action: describeToolCall(call.function.name, call.function.arguments),
        result,
        failed: result !== undefined && isFailedResult(result),
      });
    }
  }
  return calls;
}

/**
 * What a retry of a call must act on to resolve its error: the same command for shell calls, the same path for file
 * calls, the same pattern and path for searches; for other tools, any later call of the tool.
 */
function target(call: Call): string {
  const a = call.action;
  switch (a.kind) {
    case 'shell':
      return `${call.name}\0${normalizeCommand(a.command)}`;
    case 'read':
    case 'write':
    case 'edit':
    case 'list':
      return `${call.name}\0${normalizeProbePath(a.path)}`;
    case 'search':
      return `${call.name}\0${a.pattern}\0${a.path ?? ''}`;
    default:
      return call.name;
  }
}

function artifactProbes(calls: readonly Call[]): Probe[] {
  const byPath = new Map<string, Extract<Probe, { kind: 'artifact' }>>();
  for (const call of calls) {
    const a = call.action;
    if ((a.kind !== 'read' && a.kind !== 'write' && a.kind !== 'edit') || call.failed || !call.result) continue;
    const path = normalizeProbePath(a.path);
    let probe = byPath.get(path);
    if (!probe) byPath.set(path, (probe = { kind: 'artifact', path, spellings: [], actions: [] }));
    const spelling = collapseWhitespace(a.path);
    if (!probe.spellings.includes(spelling)) probe.spellings.push(spelling);
    if (!probe.actions.includes(a.kind)) probe.actions.push(a.kind);
  }
  return [...byPath.values()];
}

function commandProbes(calls: readonly Call[]): Probe[] {
  const byCommand = new Map<string, Extract<Probe, { kind: 'command' }>>();
  for (const call of calls) {
    if (call.action.kind !== 'shell') continue;
    const command = normalizeCommand(call.action.command);
    if (command === '') continue;
    const probe = byCommand.get(command);
    if (probe) {
      probe.runs++;
      probe.failed ||= call.failed;
    } else byCommand.set(command, { kind: 'command', command, runs: 1, failed: call.failed });
  }
  return [...byCommand.values()];
}

function errorProbes(calls: readonly Call[]): Probe[] {
  const byLine = new Map<string, Extract<Probe, { kind: 'error' }>>();
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i];
    if (!call.failed || !call.result) continue;
    const line = errorLine(call.result);
    if (line === undefined) continue;
    const key = target(call);
    let resolved = false;
    for (let j = i + 1; j < calls.length && !resolved; j++) {
      const later = calls[j];
      resolved = later.result !== undefined && !later.failed && target(later) === key;
    }
    // A line seen again takes the state of its latest occurrence, but keeps its first position.
    const probe = byLine.get(line);
    if (probe) {
      probe.resolved = resolved;
      probe.tool = call.name;
    } else byLine.set(line, { kind: 'error', line, tool: call.name, resolved });
  }
  return [...byLine.values()];
}

function intentProbes(messages: readonly Message[]): Probe[] {
  const out: Probe[] = [];
  const seen = new Set<string>();
  let last: string | undefined;
  for (const m of messages) {
    if (!isRole(m, 'user')) continue;
    const text = requestText(m);
    if (text === undefined) continue;
    last = text;
    if (seen.has(text) || keyPhrases(text).length === 0) continue;
    seen.add(text);
    out.push({ kind: 'intent', text, match: 'phrases' });
  }
  if (last !== undefined) out.push({ kind: 'intent', text: last, match: 'verbatim' });
  return out;
}

/** Open items of the last call that wrote a todo list (a call with a `todos`/`plan` array, even an empty one). */
function taskProbes(calls: readonly Call[]): Probe[] {
  for (let i = calls.length - 1; i >= 0; i--) {
    const call = calls[i];
    if (call.action.kind !== 'todo') continue;
    const args = parseArguments(call.argumentsJson) ?? {};
    if (!Array.isArray(args.todos ?? args.plan)) continue;
    const out: Probe[] = [];
    const seen = new Set<string>();
    for (const todo of call.action.todos) {
      const content = collapseWhitespace(todo.content);
      if (CLOSED_STATUSES.has(todo.status.toLowerCase()) || content === '' || seen.has(content)) continue;
      seen.add(content);
      out.push({ kind: 'task', content, status: todo.status });
    }
    return out;
  }
  return [];
}

/**
 * The probes of a transcript, grouped by kind in {@link PROBE_KINDS} order, each kind in order of first appearance.
 * Deterministic: a pure function of the messages.
 */
export function extractProbes(transcript: Transcript | { messages: readonly Message[] }): Probe[] {
  const calls = callsInOrder(transcript.messages);
  return [...artifactProbes(calls), ...commandProbes(calls), ...errorProbes(calls), ...intentProbes(transcript.messages), ...taskProbes(calls)];
}
