import type { FormatName } from '../formats/types.js';

/** The agents whose sessions `tcompact sources` finds, in the order it lists them. */
export const AGENT_NAMES = [
  'claude-code',
  'codex',
  'gemini',
  'cline',
  'roo-code',
  'kilo-code',
  'opencode',
  'kilo',
  'goose',
  'pi',
  'openclaw',
  'amp',
  'kimi',
  'droid',
  'qwen',
  'continue',
  'copilot',
  'crush',
  'zed',
  'hermes',
] as const;
export type AgentName = (typeof AGENT_NAMES)[number];

/**
 * Where the current user's agents keep their sessions is a function of these three, passed in rather than read from
 * the process so that a test can point discovery at a fake home (and at another platform's layout).
 */
export interface SourceEnvironment {
  /** The user's home folder (`os.homedir()` for the current user). */
  home: string;
  /** Environment variables (`process.env`): CLAUDE_CONFIG_DIR, CODEX_HOME, XDG_*, APPDATA... */
  env: Readonly<Record<string, string | undefined>>;
  /** `process.platform`: decides the layout of VS Code's and goose's folders and the path separator. */
  platform: NodeJS.Platform;
}

/** What a folder holds. */
export type SourceKind = 'projects' | 'sessions' | 'archived sessions' | 'chats' | 'checkpoints' | 'tasks' | 'storage' | 'threads' | 'database';

/** A folder where an agent writes sessions, derived from the environment alone (it may not exist). */
export interface Location {
  agent: AgentName;
  kind: SourceKind;
  dir: string;
  /** What put it there: `default`, or the variable that set it (`CLAUDE_CONFIG_DIR`, `XDG_DATA_HOME`...). */
  origin: string;
  /** The format tcompact reads its sessions as (detection gives the same). */
  format: FormatName;
}

/** One session found in a location: its files, and what filters look at. */
export interface Session {
  agent: AgentName;
  /** The files to read, in reading order (a Claude Code session, then its subagents); a store's session: the store. */
  files: string[];
  /** A session inside a SQLite store: the store and the session's id there (its reader reads only the selected ones). */
  store?: { file: string; session: string };
  bytes: number;
  /** When the session started: its own recorded time when it has one (`startFrom: 'session'`), else its file's mtime. */
  start: number;
  startFrom: 'session' | 'file';
  /** When it was last written: the latest modification time of its files (a store's session: its own last update). */
  end: number;
  /** What `--project` matches: the project's folder, name or hash as the agent records it. */
  projects: string[];
}

/** Files found in a location that tcompact cannot read, counted together with the reason. */
export interface NotRead {
  files: number;
  bytes: number;
  reason: string;
}

/** What one location holds, after the filters (see `tcompact sources`). */
export interface SourceSummary {
  agent: AgentName;
  kind: SourceKind;
  folder: string;
  origin: string;
  format: FormatName;
  /** Sessions that pass the filters. */
  sessions: number;
  /** Their files and bytes. */
  files: number;
  bytes: number;
  /** Earliest start and latest end of those sessions (ISO 8601, UTC); absent with no session. */
  first?: string;
  last?: string;
  /** Where `first` comes from: the sessions' own start times, their files' modification times, or both. */
  firstFrom?: 'session' | 'file' | 'mixed';
  /** `last` is always a file modification time. */
  lastFrom?: 'file';
  /** Files tcompact cannot read (a SQLite database, compressed rollouts), not subject to the filters. */
  notRead?: NotRead[];
}

/** The selection of `--agent`, `--since`, `--until` and `--project`, validated (see filters.ts). */
export interface SourceFilters {
  /** Only these agents. @default every agent */
  agents?: readonly AgentName[];
  /** Sessions still written on or after this time (ms since the epoch). */
  since?: number;
  /** Sessions started on or before this time (ms since the epoch). */
  until?: number;
  /** Sessions whose project contains this text (case-insensitive). */
  project?: string;
}

/** What one agent contributes to discovery: where it writes (from the environment alone) and how to list a folder. */
export interface AgentSource {
  agent: AgentName;
  /** Every folder the agent may write sessions to, existing or not, in the order they are listed. */
  locations(environment: SourceEnvironment): Location[];
  /** The sessions in an existing location, in reading order, and the files there that cannot be read. */
  scan(location: Location): Promise<Scan>;
}

export interface Scan {
  sessions: Session[];
  notRead: NotRead[];
}
