import { readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { isSqliteFile } from './_sqlite-file.js';

/**
 * The SQLite stores agents keep their sessions in, by name (OpenCode's `opencode.db` and `opencode-<channel>.db`, Kilo
 * CLI's `kilo.db`): other `.db` files in a walked folder are not sessions.
 */
const STORE_FILE = /^(opencode|kilo)(-[\w.-]+)?\.db$/i;
/**
 * Other database files (goose's `sessions.db`, Crush's `crush.db`, Zed's `threads.db`, Hermes' `state.db`, any
 * copy renamed): an input when it is a SQLite database that detection takes for an agent's store, by its tables and
 * columns; any other database is not a session and is passed over.
 */
const DATABASE_FILE = /\.(db|db3|sqlite|sqlite3)$/i;
/** File names a directory walk takes as inputs; OpenClaw renames a session it resets or deletes `<id>.jsonl.reset.<time>`. */
const DATA_FILE = /\.(jsonl|json|traj)$|\.jsonl\.(reset|deleted)\.\d{4}-\d{2}-\d{2}T[\d.-]+Z$/i;
/** aider's Markdown chat history (`.aider.chat.history.md`, or a copy named `chat-history.md`); other Markdown is docs. */
const AIDER_HISTORY = /(^|[.-])chat[.-]history\.md$/i;

/**
 * The folders agents keep their sessions in, which a walk enters although their name starts with a dot (a repository's
 * `.claude/`, a home directory's `.codex/sessions/`); other dot-folders (`.git`, `.venv`) are skipped.
 */
const AGENT_DIRS: ReadonlySet<string> = new Set(['.claude', '.codex', '.openhands', '.swe-agent', '.aider']);

/** Folders that never hold sessions and can be huge. */
const SKIPPED_DIRS: ReadonlySet<string> = new Set(['node_modules']);

/** Agent settings files, not sessions. */
const SETTINGS_FILE = /^settings(\.[\w-]+)?\.json$/i;

/**
 * Files Cline and Roo Code keep beside a task's history: the UI's copy of the chat (read with the history), the task's
 * file tracking, Cline's context edits (`context_history.json`, read with the history), Roo's task summary
 * (`history_item.json`) and its index of tasks (`tasks/_index.json`).
 */
const COMPANION_FILE = /^(ui_messages|task_metadata|context_history|history_item|_index)\.json$/i;
/** The UI log of a Cline task: an input of its own (a usage-only session) when no history sits beside it. */
const UI_LOG = /^ui_messages\.json$/i;
const HISTORY = /^api_conversation_history\.json$/i;

/** OpenClaw's index of a folder's sessions (`agents/<agent>/sessions/sessions.json`): keys and ids, no conversation. */
const SESSION_INDEX = /^sessions\.json$/i;

/**
 * The data files under a directory, recursively, in a fixed order: in each directory its files by name, then its
 * subdirectories by name (so a Claude Code `<session>.jsonl` comes before `<session>/subagents/`). Only `.jsonl`,
 * `.json` and `.traj` files, OpenClaw's archived sessions (`<id>.jsonl.reset.<time>`, `.deleted.`) and aider chat
 * histories (`.aider.chat.history.md`) are inputs, and the agents' SQLite stores (STORE_FILE by name, other database files
 * when detection takes them for a store); other files (READMEs, licences), agent settings files, Cline's and
 * Roo's companion files (COMPANION_FILE), OpenClaw's index `sessions/sessions.json`, entries whose name starts with a
 * dot (except the agents' own folders, AGENT_DIRS, and aider's history) and `node_modules` are not.
 * Symbolic links to directories are not followed (no cycles).
 */
export async function* walkDataFiles(dir: string): AsyncGenerator<string> {
  const entries = await readdir(dir, { withFileTypes: true });
  const sessionsDir = basename(dir) === 'sessions';
  const files: string[] = [];
  const dirs: string[] = [];
  for (const entry of entries) {
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name) && (!entry.name.startsWith('.') || AGENT_DIRS.has(entry.name))) dirs.push(entry.name);
      continue;
    }
    const input =
      DATA_FILE.test(entry.name) ||
      AIDER_HISTORY.test(entry.name) ||
      STORE_FILE.test(entry.name) ||
      (DATABASE_FILE.test(entry.name) && !entry.isDirectory() && (await isAgentStore(join(dir, entry.name))));
    const usageOnlyLog = UI_LOG.test(entry.name) && !entries.some((e) => HISTORY.test(e.name));
    if ((entry.name.startsWith('.') && !AIDER_HISTORY.test(entry.name)) || SETTINGS_FILE.test(entry.name) || (COMPANION_FILE.test(entry.name) && !usageOnlyLog))
      continue;
    if (sessionsDir && SESSION_INDEX.test(entry.name)) continue;
    if (entry.isFile() && input) files.push(entry.name);
    else if (entry.isSymbolicLink() && input) {
      const target = await stat(join(dir, entry.name)).catch(() => undefined);
      if (target?.isFile()) files.push(entry.name);
    }
  }
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  for (const name of files.sort(byName)) yield join(dir, name);
  for (const name of dirs.sort(byName)) yield* walkDataFiles(join(dir, name));
}

/** Whether a database file is an agent's SQLite store, as detection decides it (its schema, not its name). */
async function isAgentStore(file: string): Promise<boolean> {
  return (await isSqliteFile(file)) && (await (await import('./_detect-stores.js')).detectStore(file)).ok;
}
