import { contentText, isAttachmentPart } from '../model/content.js';
import { type Message, type ToolCall, type ToolMessage, isUser } from '../model/message.js';
import { callAction, callArguments, callCanonicalArguments } from '../model/tool-call-facts.js';
import { collapseWhitespace, errorLine } from '../model/tool-outcome.js';
import { type ToolAction, normalizePath } from '../model/tool-semantics.js';
import { type CallSite, callSites, failedOrMissing } from './_call-sites.js';
import { type LineRange, readRange } from './_line-ranges.js';
import { DEFAULT_TOOL_HINTS } from './tool-hints.js';

/** What `checkpoint` keeps of a span of messages. Everything is in the order it first happened. */
export interface CheckpointFacts {
  /** User request texts, verbatim. */
  requests: string[];
  filesRead: string[];
  filesCreated: string[];
  filesModified: string[];
  /** Every file a successful call touched, with what was done to it. */
  files: FileFact[];
  commands: CommandFact[];
  /** Every distinct error line, with whether a later call on the same target succeeded. */
  errors: ErrorFact[];
  /** Items of the last todo list that are not completed. */
  openTodos: { content: string; status: string }[];
  /** Tool calls in the span: the clock of the `last` fields below. */
  calls: number;
}

interface FileFact {
  path: string;
  /** In order of first occurrence. */
  actions: ('read' | 'created' | 'modified')[];
  /** Successful reads of the file. */
  reads: number;
  /**
   * The lines those reads covered, merged and sorted, when every read had a line range (`Read` with `offset`/`limit`,
   * `read_file` with `start_line`/`end_line`); empty when some read took the whole file or its range is unknown.
   */
  lines: LineRange[];
  /** Ordinal of the last call that touched it, successful or not. */
  last: number;
  /** A failed call on the file that no later success on the same target resolved. */
  unresolved: boolean;
}

interface CommandFact {
  command: string;
  /** Runs of this command after which it never failed again are not listed as errors. */
  runs: number;
  failedRuns: number;
  /** The outcome of the last run: undefined when it succeeded, else its error line. */
  lastFailure?: string;
  /** Ordinal of the last run. */
  last: number;
}

interface ErrorFact {
  /** What failed: `Edit /p/a.ts`, `` `npm test` ``, `get_user(...)`. */
  what: string;
  /** The error line as `errorLine` reads it (first non-empty line, not a bare exit code, at most 200 characters). */
  message: string;
  /** A later call with the same target succeeded. */
  resolved: boolean;
  /** Ordinal of the last call that gave this error line. */
  last: number;
  /** Where the error happened (`src/a.ts:12`), from its trace, when the error line does not say. */
  at?: string;
}

/** A `file.ext:line` location, or Python's `File "file.ext", line N`. */
const LOCATION_RE = /(?:^|[\s("'])((?:[\w.@~-]*\/)*[\w.@~-]+\.[A-Za-z]{1,6}):(\d+)(?::\d+)?|File "([^"]+)", line (\d+)/m;

/** The first location a failed result names, when its error line names none: the trace reduced to where it points. */
export function errorLocation(text: string, line: string): string | undefined {
  if (LOCATION_RE.test(line)) return undefined;
  const m = LOCATION_RE.exec(text);
  if (!m) return undefined;
  return m[1] !== undefined ? `${m[1]}:${m[2]}` : `${m[3]}:${m[4]}`;
}

const EXIT_CODE_RE = /\bexit(?:ed with)? code[:\s]+(-?\d+)/i;

/** The exit code a tool result reports on its first or last line (`Exit code 1`, `[... exit code 1.]`), if any. */
export function exitCodeOf(text: string): number | undefined {
  // The two lines are cut out rather than split from the whole text: results run to megabytes.
  const trimmed = text.trim();
  const firstEnd = trimmed.indexOf('\n');
  for (const line of [firstEnd < 0 ? trimmed : trimmed.slice(0, firstEnd), trimmed.slice(trimmed.lastIndexOf('\n') + 1)]) {
    const m = EXIT_CODE_RE.exec(line);
    if (m) return Number(m[1]);
  }
  return undefined;
}

/** A line cut to `max` characters, an ellipsis saying so. */
function cut(line: string, max: number): string {
  return line.length > max ? `${line.slice(0, max - 3)}...` : line;
}

function failed(messages: readonly Message[], site: CallSite): boolean {
  if (failedOrMissing(messages, site)) return true;
  const code = exitCodeOf(contentText((messages[site.result] as ToolMessage).content));
  return code !== undefined && code !== 0;
}

/**
 * What one call did, as the facts need it: `command` is a shell call's command with whitespace collapsed, `path` the
 * normalized path of a call that names one. Each is read once per call, as a span has thousands.
 */
interface CallRead {
  call: ToolCall;
  action: ToolAction;
  command?: string;
  path?: string;
}

/** The key under which a later success resolves an earlier failure: same command, same file, or same call. */
function targetKey({ call, action, command, path }: CallRead): string {
  const name = call.function.name;
  switch (action.kind) {
    case 'shell':
      return `shell\0${command}`;
    case 'read':
    case 'write':
    case 'edit':
    case 'list':
      return `${action.kind}\0${name}\0${path}`;
    default:
      return `other\0${name}\0${otherShown(call)}`;
  }
}

/** How a failed call is named in the error list: `` `npm test` ``, `Edit /p/a.ts`, `get_user(...)`. */
function targetWhat({ call, action, command }: CallRead): string {
  const name = call.function.name;
  switch (action.kind) {
    case 'shell':
      return `\`${cut(command as string, 80)}\``;
    case 'read':
    case 'write':
    case 'edit':
    case 'list':
      return `${name} ${action.path}`;
    default:
      return `${name}(${otherShown(call)})`;
  }
}

function otherShown(call: ToolCall): string {
  return cut(collapseWhitespace(callCanonicalArguments(call) ?? call.function.arguments), 120);
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

/** The lines a read call names by its tool's range rule; undefined for a whole-file read or an unknown range. */
function rangeOf(call: ToolCall): LineRange | undefined {
  const rule = DEFAULT_TOOL_HINTS[call.function.name]?.range;
  const args = callArguments(call);
  if (rule === undefined || args === undefined) return undefined;
  const range = readRange(args, rule);
  return range === undefined || (range.start === 1 && range.end === Infinity) ? undefined : range;
}

/** Collects a file's read ranges; one read without a range (the whole file) makes the file's entry null for good. */
function addRange(ranges: Map<string, LineRange[] | null>, key: string, range: LineRange | undefined): void {
  const list = ranges.get(key);
  if (list === null) return;
  if (range === undefined) ranges.set(key, null);
  else if (list === undefined) ranges.set(key, [range]);
  else list.push(range);
}

/** Ranges sorted by start, overlapping or adjacent ones merged. */
export function mergeRanges(ranges: readonly LineRange[] | null): LineRange[] {
  if (ranges === null) return [];
  const out: LineRange[] = [];
  for (const r of [...ranges].sort((a, b) => a.start - b.start || a.end - b.end)) {
    const last = out.at(-1);
    if (last !== undefined && r.start <= last.end + 1) last.end = Math.max(last.end, r.end);
    else out.push({ ...r });
  }
  return out;
}

/** Extracts the facts of a span: what the user asked, which files and commands were touched, what failed and stayed failed. */
export function extractFacts(messages: readonly Message[]): CheckpointFacts {
  const facts: CheckpointFacts = {
    requests: [],
    filesRead: [],
    filesCreated: [],
    filesModified: [],
    files: [],
    commands: [],
    errors: [],
    openTodos: [],
    calls: 0,
  };
  const files = new Map<string, FileFact>();
  const lastTouch = new Map<string, number>();
  /** `key` is the normalized `path`. */
  const touch = (path: string, key: string, action: FileFact['actions'][number]) => {
    let fact = files.get(key);
    if (!fact) files.set(key, (fact = { path, actions: [], reads: 0, lines: [], last: 0, unresolved: false }));
    if (!fact.actions.includes(action)) fact.actions.push(action);
    if (action === 'read') fact.reads++;
  };
  for (const m of messages) {
    if (!isUser(m)) continue;
    const text = requestText(m);
    if (text.trim() !== '') facts.requests.push(text);
  }
  const readPaths = new Set<string>();
  const created = new Set<string>();
  const modified = new Set<string>();
  const touched = new Set<string>();
  const commands = new Map<string, CommandFact>();
  const ranges = new Map<string, LineRange[] | null>();
  const failures: { key: string; what: string; message: string; seq: number; path?: string; at?: string }[] = [];
  const lastSuccess = new Map<string, number>();
  let todos: { content: string; status: string }[] | undefined;
  for (const site of callSites(messages)) {
    const action = callAction(site.call);
    const bad = failed(messages, site);
    const path = 'path' in action && typeof action.path === 'string' ? normalizePath(action.path) : undefined;
    const command = action.kind === 'shell' ? collapseWhitespace(action.command) : undefined;
    const read: CallRead = { call: site.call, action, ...(path === undefined ? {} : { path }), ...(command === undefined ? {} : { command }) };
    const key = targetKey(read);
    // Only a failure needs its error line.
    const line = bad && site.result >= 0 ? errorLine(messages[site.result] as ToolMessage) : undefined;
    if (path !== undefined) lastTouch.set(path, site.seq);
    facts.calls = site.seq + 1;
    if (bad) {
      const message = line || 'no result recorded';
      const at = line ? errorLocation(contentText((messages[site.result] as ToolMessage).content), line) : undefined;
      failures.push({
        key,
        what: targetWhat(read),
        message,
        seq: site.seq,
        ...(path === undefined ? {} : { path }),
        ...(at === undefined ? {} : { at }),
      });
    } else lastSuccess.set(key, site.seq);
    if (command !== undefined) {
      if (command === '') continue;
      let fact = commands.get(command);
      if (!fact) commands.set(command, (fact = { command, runs: 0, failedRuns: 0, last: 0 }));
      fact.runs++;
      fact.last = site.seq;
      if (bad) {
        fact.failedRuns++;
        fact.lastFailure = line || 'no result recorded';
      } else {
        delete fact.lastFailure;
      }
      continue;
    }
    if (bad) continue;
    if (action.kind === 'read') {
      pushOnce(facts.filesRead, readPaths, action.path);
      touch(action.path, path as string, 'read');
      addRange(ranges, path as string, rangeOf(site.call));
      touched.add(path as string);
    } else if (action.kind === 'write') {
      const existed = touched.has(path as string);
      if (existed) pushOnce(facts.filesModified, modified, action.path);
      else pushOnce(facts.filesCreated, created, action.path);
      touch(action.path, path as string, existed ? 'modified' : 'created');
      touched.add(path as string);
    } else if (action.kind === 'edit') {
      pushOnce(facts.filesModified, modified, action.path);
      touch(action.path, path as string, 'modified');
      touched.add(path as string);
    } else if (action.kind === 'todo' && action.todos.length > 0) todos = action.todos;
  }
  facts.commands = [...commands.values()];
  for (const [key, fact] of files) {
    fact.last = lastTouch.get(key) ?? 0;
    fact.lines = mergeRanges(ranges.get(key) ?? null);
  }
  facts.files = [...files.values()];
  // One entry per distinct error line, in first-seen order, with the status of its latest occurrence.
  const errors = new Map<string, ErrorFact>();
  for (const f of failures) {
    const resolved = (lastSuccess.get(f.key) ?? -1) > f.seq;
    errors.set(f.message, { what: f.what, message: f.message, resolved, last: f.seq, ...(f.at === undefined ? {} : { at: f.at }) });
    const file = f.path === undefined ? undefined : files.get(f.path);
    if (file && !resolved) file.unresolved = true;
  }
  facts.errors = [...errors.values()];
  facts.openTodos = (todos ?? []).filter((t) => t.status !== 'completed');
  return facts;
}
