import { canonicalJson, parseArguments } from '../io/canonical-json.js';
import { contentText, isAttachmentPart } from '../model/content.js';
import { type Message, type ToolMessage, isUser } from '../model/message.js';
import { type ToolAction, describeToolCall, normalizePath } from '../model/tool-semantics.js';
import { type CallSite, callSites, failedOrMissing } from './_call-sites.js';

/** What `checkpoint` keeps of a span of messages. Everything is in the order it first happened. */
export interface CheckpointFacts {
  /** User request texts, verbatim. */
  requests: string[];
  filesRead: string[];
  filesCreated: string[];
  filesModified: string[];
  commands: CommandFact[];
  /** Failures other than retried commands that later succeeded (those are transient noise, kept only as a count). */
  errors: ErrorFact[];
  /** Items of the last todo list that are not completed. */
  openTodos: { content: string; status: string }[];
}

export interface CommandFact {
  command: string;
  /** Runs of this command after which it never failed again are not listed as errors. */
  runs: number;
  failedRuns: number;
  /** The outcome of the last run: undefined when it succeeded, else its first meaningful line. */
  lastFailure?: string;
}

export interface ErrorFact {
  /** What failed: `Edit /p/a.ts`, `` `npm test` ``, `get_user(...)`. */
  what: string;
  message: string;
  /** A later call with the same target succeeded. */
  resolved: boolean;
}

const EXIT_CODE_RE = /\bexit(?:ed with)? code[:\s]+(-?\d+)/i;

/** The exit code a tool result reports on its first or last line (`Exit code 1`, `[... exit code 1.]`), if any. */
export function exitCodeOf(text: string): number | undefined {
  const lines = text.trim().split('\n');
  for (const line of [lines[0], lines[lines.length - 1]]) {
    const m = EXIT_CODE_RE.exec(line ?? '');
    if (m) return Number(m[1]);
  }
  return undefined;
}

/** The first line of a result that says something (not the bare exit-code line), at most `max` characters. */
export function firstMeaningfulLine(text: string, max: number): string {
  const lines = text.split('\n').map((l) => l.trim());
  const line = lines.find((l) => l !== '' && !/^exit code[:\s]+-?\d+$/i.test(l)) ?? lines.find((l) => l !== '') ?? '';
  return line.length > max ? `${line.slice(0, max - 3)}...` : line;
}

function oneLine(text: string, max: number): string {
  const line = text.trim().replace(/\s+/g, ' ');
  return line.length > max ? `${line.slice(0, max - 3)}...` : line;
}

function failed(messages: readonly Message[], site: CallSite): boolean {
  if (failedOrMissing(messages, site)) return true;
  const code = exitCodeOf(contentText((messages[site.result] as ToolMessage).content));
  return code !== undefined && code !== 0;
}

/** The key under which a later success resolves an earlier failure: same command, same file, or same call. */
function targetOf(name: string, argumentsJson: string, action: ToolAction): { key: string; what: string } {
  switch (action.kind) {
    case 'shell': {
      return { key: `shell\0${oneLine(action.command, 160)}`, what: `\`${oneLine(action.command, 80)}\`` };
    }
    case 'read':
    case 'write':
    case 'edit':
    case 'list':
      return { key: `${action.kind}\0${name}\0${normalizePath(action.path)}`, what: `${name} ${action.path}` };
    default: {
      const args = parseArguments(argumentsJson);
      const shown = oneLine(args ? canonicalJson(args) : argumentsJson, 120);
      return { key: `other\0${name}\0${shown}`, what: `${name}(${shown})` };
    }
  }
}

function pushOnce(list: string[], seen: Set<string>, value: string): void {
  if (seen.has(value)) return;
  seen.add(value);
  list.push(value);
}

function requestText(m: Message): string {
  const content = (m as { content?: unknown }).content;
  let text = contentText(content as Parameters<typeof contentText>[0]);
  if (Array.isArray(content)) {
    const n = content.filter((p) => isAttachmentPart(p)).length;
    if (n > 0) text = `${text}${text === '' ? '' : ' '}[${n} attachment${n === 1 ? '' : 's'}]`;
  }
  return text;
}

/** Extracts the facts of a span: what the user asked, which files and commands were touched, what failed and stayed failed. */
export function extractFacts(messages: readonly Message[]): CheckpointFacts {
  const facts: CheckpointFacts = { requests: [], filesRead: [], filesCreated: [], filesModified: [], commands: [], errors: [], openTodos: [] };
  for (const m of messages) {
    if (!isUser(m)) continue;
    const text = requestText(m);
    if (text.trim() !== '') facts.requests.push(text);
  }
  const read = new Set<string>();
  const created = new Set<string>();
  const modified = new Set<string>();
  const touched = new Set<string>();
  const commands = new Map<string, CommandFact>();
  const failures: { key: string; what: string; message: string; seq: number }[] = [];
  const lastSuccess = new Map<string, number>();
  let todos: { content: string; status: string }[] | undefined;
  for (const site of callSites(messages)) {
    const { name, arguments: argumentsJson } = site.call.function;
    const action = describeToolCall(name, argumentsJson);
    const bad = failed(messages, site);
    const target = targetOf(name, argumentsJson, action);
    const resultText = site.result >= 0 ? contentText((messages[site.result] as ToolMessage).content) : '';
    if (bad) failures.push({ key: target.key, what: target.what, message: firstMeaningfulLine(resultText, 200) || 'no result recorded', seq: site.seq });
    else lastSuccess.set(target.key, site.seq);
    if (action.kind === 'shell') {
      const command = oneLine(action.command, 160);
      let fact = commands.get(command);
      if (!fact) commands.set(command, (fact = { command, runs: 0, failedRuns: 0 }));
      fact.runs++;
      if (bad) {
        fact.failedRuns++;
        fact.lastFailure = firstMeaningfulLine(resultText, 200) || 'no result recorded';
      } else {
        delete fact.lastFailure;
      }
      continue;
    }
    if (bad) continue;
    if (action.kind === 'read') pushOnce(facts.filesRead, read, action.path);
    else if (action.kind === 'write') {
      const p = normalizePath(action.path);
      if (touched.has(p)) pushOnce(facts.filesModified, modified, action.path);
      else pushOnce(facts.filesCreated, created, action.path);
      touched.add(p);
    } else if (action.kind === 'edit') {
      pushOnce(facts.filesModified, modified, action.path);
      touched.add(normalizePath(action.path));
    } else if (action.kind === 'todo' && action.todos.length > 0) todos = action.todos;
    if (action.kind === 'read') touched.add(normalizePath(action.path));
  }
  facts.commands = [...commands.values()];
  // One entry per distinct failure, in first-seen order, with the status of its latest occurrence.
  const errors = new Map<string, ErrorFact>();
  for (const f of failures) {
    const resolved = (lastSuccess.get(f.key) ?? -1) > f.seq;
    // A command retried until it worked is transient noise: its failed runs show only as a count in the command list.
    if (resolved && f.key.startsWith('shell\0')) continue;
    errors.set(`${f.key}\0${f.message}`, { what: f.what, message: f.message, resolved });
  }
  facts.errors = [...errors.values()];
  facts.openTodos = (todos ?? []).filter((t) => t.status !== 'completed');
  return facts;
}
