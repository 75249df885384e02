import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './paths.js';
import { runStoreWriter } from './sqlite-writer.js';

const WRITER = join(ROOT, 'test', 'fixtures', 'goose-db', 'write_store.py');

/** One goose session as its database holds it: the `sessions` row's fields and its messages as goose serialises them. */
export interface GooseStoredSession {
  id: string;
  name: string;
  workingDir: string;
  /** SQLite's `CURRENT_TIMESTAMP` text (UTC), as goose's `create_session` leaves it. */
  createdAt: string;
  sessionType?: string;
  providerName?: string | null;
  modelConfig?: Record<string, unknown> | null;
  tokens?: Partial<Record<'total' | 'input' | 'output' | 'accumulatedTotal' | 'accumulatedInput' | 'accumulatedOutput', number | null>>;
  accumulatedCost?: number | null;
  /** Messages as goose's `Message` serialises them: `{id, role, created, content, metadata}`. */
  messages: { id?: string; role: string; created: number; content: unknown[]; metadata?: Record<string, unknown> }[];
}

export interface GooseLayout {
  /** Messages (in order, over all sessions) from this index on are committed to the WAL only. */
  walFrom?: number;
  /** A large transaction after the commits that never commits. */
  uncommittedTail?: boolean;
  /** The schema version the store says it has (goose's is 13). */
  version?: number;
}

const sqliteTime = (seconds: number): string => new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ');

/**
 * Writes goose sessions into a `sessions.db` with goose's tables, through test/fixtures/goose-db/write_store.py
 * (python3's sqlite3, WAL mode, the writer killed at the end as a running agent leaves its files).
 */
export function writeGooseDatabase(file: string, sessions: readonly GooseStoredSession[], layout: GooseLayout = {}): void {
  const rows = { version: layout.version ?? 13, sessions: [] as unknown[][], messages: [] as unknown[][], walFrom: 0, tail: layout.uncommittedTail === true };
  for (const s of sessions) {
    const t = s.tokens ?? {};
    rows.sessions.push([
      s.id,
      s.name,
      '',
      false,
      s.sessionType ?? 'user',
      s.workingDir,
      s.createdAt,
      s.createdAt,
      t.total ?? null,
      t.input ?? null,
      t.output ?? null,
      t.accumulatedTotal ?? null,
      t.accumulatedInput ?? null,
      t.accumulatedOutput ?? null,
      s.accumulatedCost ?? null,
      null,
      s.providerName ?? null,
      s.modelConfig === undefined || s.modelConfig === null ? null : JSON.stringify(s.modelConfig),
    ]);
    for (const [i, m] of s.messages.entries())
      rows.messages.push([
        m.id ?? `msg_${s.id}_${i}`,
        s.id,
        m.role,
        JSON.stringify(m.content),
        m.created,
        sqliteTime(m.created),
        JSON.stringify(m.metadata ?? {}),
      ]);
  }
  rows.walFrom = layout.walFrom ?? rows.messages.length;
  runStoreWriter(WRITER, file, 'goose', rows);
}

/**
 * A goose session file of earlier versions (`<id>.jsonl`: its metadata line, then one message per line) as the
 * database holds it: goose's `import_legacy` copies each such file into `sessions.db`.
 */
export function gooseSessionFromJsonl(file: string, id: string, extra: Partial<GooseStoredSession> = {}): GooseStoredSession {
  const [meta, ...messages] = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const first = messages[0] as { created: number };
  return {
    id,
    name: String(meta.description),
    workingDir: String(meta.working_dir),
    createdAt: sqliteTime(first.created),
    tokens: {
      total: meta.total_tokens as number,
      input: meta.input_tokens as number,
      output: meta.output_tokens as number,
      accumulatedTotal: meta.accumulated_total_tokens as number,
      accumulatedInput: meta.accumulated_input_tokens as number,
      accumulatedOutput: meta.accumulated_output_tokens as number,
    },
    messages: messages as unknown as GooseStoredSession['messages'],
    ...extra,
  };
}

const GOOSE_JSONL = join(ROOT, 'test', 'fixtures', 'goose', '20251112_094402.jsonl');

/**
 * The goose store's fixture sessions: the session file of test/fixtures/goose as goose's import copies it (its
 * accumulated counters, an Anthropic model), and the same conversation a day later in another folder under an OpenAI
 * model, whose recorded total exceeds input plus output (the thinking goose counts in the total only).
 */
export function gooseFixtureSessions(): [GooseStoredSession, GooseStoredSession] {
  const first = gooseSessionFromJsonl(GOOSE_JSONL, '20251112_094402', { providerName: 'anthropic', modelConfig: { model_name: 'claude-sonnet-4-20250514' } });
  const second = gooseSessionFromJsonl(GOOSE_JSONL, '20251113_1', {
    workingDir: '/home/dev/api-server',
    providerName: 'openai',
    modelConfig: { model_name: 'gpt-4o' },
    createdAt: '2025-11-13 08:00:00',
    tokens: { total: 900, input: 700, output: 150, accumulatedTotal: 12_400, accumulatedInput: 11_000, accumulatedOutput: 1_100 },
  });
  second.messages = second.messages.map((m) => ({ ...m, id: `${m.id ?? ''}-b`, created: m.created + 86_400 }));
  return [first, second];
}
