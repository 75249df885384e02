import { parseArguments } from '../io/canonical-json.js';

/** What a tool call did, as far as compaction and evaluation care: shared by `checkpoint`, `dedup-tools` and `eval`. */
export type ToolAction =
  | { kind: 'read'; path: string }
  | { kind: 'write'; path: string }
  | { kind: 'edit'; path: string }
  | { kind: 'shell'; command: string }
  | { kind: 'search'; pattern: string; path?: string }
  | { kind: 'list'; path: string }
  | { kind: 'todo'; todos: { content: string; status: string }[] }
  | { kind: 'other' };

const READ = new Set(['read', 'read_file', 'fs_read_file', 'view_file', 'open_file', 'cat']);
const WRITE = new Set(['write', 'write_file', 'create_file', 'fs_write_file', 'create']);
const EDIT = new Set(['edit', 'multiedit', 'edit_file', 'str_replace', 'notebookedit', 'apply_patch', 'insert']);
const SHELL = new Set(['bash', 'execute_bash', 'shell', 'run_command', 'exec_command', 'run_shell_command', 'terminal', 'local_shell']);
const SEARCH = new Set(['glob', 'grep', 'search', 'search_dir', 'search_file', 'find_file', 'search_files', 'codebase_search']);
const LIST = new Set(['ls', 'list_files', 'list_dir', 'list_directory']);
const TODO = new Set(['todowrite', 'todo_write', 'update_plan', 'todoread', 'todo_read']);

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function pathOf(args: Readonly<Record<string, unknown>>): string | undefined {
  return str(args.file_path) ?? str(args.path) ?? str(args.filename) ?? str(args.notebook_path) ?? str(args.file);
}

function commandOf(args: Readonly<Record<string, unknown>>): string | undefined {
  const c = args.command ?? args.cmd;
  if (typeof c === 'string') return c;
  if (Array.isArray(c) && c.every((x) => typeof x === 'string')) {
    // Codex sends ["bash", "-lc", "<script>"]: the script is the command a person would recognise.
    if (c.length === 3 && (c[0] === 'bash' || c[0] === 'sh') && c[1].startsWith('-') && c[1].includes('c')) return c[2];
    return c.join(' ');
  }
  return undefined;
}

function todosOf(args: Readonly<Record<string, unknown>>): { content: string; status: string }[] {
  const list = args.todos ?? args.plan;
  if (!Array.isArray(list)) return [];
  const out: { content: string; status: string }[] = [];
  for (const item of list) {
    if (item === null || typeof item !== 'object') continue;
    const r = item as Record<string, unknown>;
    const content = str(r.content) ?? str(r.step) ?? str(r.title);
    if (content) out.push({ content, status: str(r.status) ?? 'pending' });
  }
  return out;
}

/** Classifies a tool call by its name and arguments (names compared case-insensitively). */
export function describeToolCall(name: string, argumentsJson: string): ToolAction {
  return describeParsedCall(name, parseArguments(argumentsJson));
}

/** {@link describeToolCall} for arguments already parsed (undefined when they are not a JSON object). */
export function describeParsedCall(name: string, parsed: Readonly<Record<string, unknown>> | undefined): ToolAction {
  const args = parsed ?? {};
  const n = name.toLowerCase();
  if (n === 'str_replace_editor' || n === 'str_replace_based_edit_tool') {
    const path = pathOf(args);
    if (!path) return { kind: 'other' };
    if (args.command === 'view') return { kind: 'read', path };
    if (args.command === 'create') return { kind: 'write', path };
    return { kind: 'edit', path };
  }
  if (READ.has(n) || WRITE.has(n) || EDIT.has(n) || LIST.has(n)) {
    const path = pathOf(args);
    if (!path) return { kind: 'other' };
    if (READ.has(n)) return { kind: 'read', path };
    if (WRITE.has(n)) return { kind: 'write', path };
    if (EDIT.has(n)) return { kind: 'edit', path };
    return { kind: 'list', path };
  }
  if (SHELL.has(n)) {
    const command = commandOf(args);
    return command ? { kind: 'shell', command } : { kind: 'other' };
  }
  if (SEARCH.has(n)) {
    const pattern = str(args.pattern) ?? str(args.query) ?? str(args.search_term) ?? str(args.regex);
    if (!pattern) return { kind: 'other' };
    const path = pathOf(args) ?? str(args.dir);
    return path ? { kind: 'search', pattern, path } : { kind: 'search', pattern };
  }
  if (TODO.has(n)) return { kind: 'todo', todos: todosOf(args) };
  return { kind: 'other' };
}

/**
 * A path that normalizing leaves as it is: no backslash, no empty (`//`, a trailing `/`), `.` or `..` segment. Most
 * paths are, and dedup-tools and checkpoint normalize every path of every call.
 */
const NEEDS_NORMALIZING = /\\|\/\/|\/$|(?:^|\/)\.\.?(?:\/|$)/;

/** Normalizes a file path for comparison: separators, `.` and `..` segments, duplicate and trailing slashes. */
export function normalizePath(path: string): string {
  if (!NEEDS_NORMALIZING.test(path)) return path;
  const absolute = path.startsWith('/');
  const out: string[] = [];
  for (const seg of path.replace(/\\/g, '/').split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..' && out.length > 0 && out[out.length - 1] !== '..') out.pop();
    else out.push(seg);
  }
  return (absolute ? '/' : '') + out.join('/');
}
