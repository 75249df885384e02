import { PiSession } from './_pi-session.js';
import { baseName, finishTranscript, skippedItem } from './_items.js';
import { acceptRecords, readRecords } from './_records.js';
import type { InputItem, ReadOptions, SourcePosition } from './types.js';

export { isPiSessionHeader } from './_pi-entries.js';

/**
 * pi's coding agent sessions (`~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl`), built from pi's source
 * (badlogic/pi-mono packages/coding-agent/src/core/session-manager.ts, messages.ts; packages/ai/src/types.ts): one
 * transcript per file, every line a unit.
 * - The `session` header -> metadata (sessionId, cwd, parentSession, sessionVersion). Versions 1 (no ids: each entry's
 *   parent is the one before, as pi migrates it) and 2 (`hookMessage` for `custom`) are read as pi reads them.
 * - `message` entries: user -> user; assistant -> assistant (text, thinking -> reasoning_content, toolCall ->
 *   tool_calls; `usage` in Anthropic's names, `model`, `provider`); toolResult -> tool; bashExecution -> the user text pi
 *   sends (`!!` commands, never sent, are skipped); custom (hookMessage) and `custom_message` -> user text marked
 *   `is_meta`. Replies that ended in `error` or `aborted` are never sent again (`retried`).
 * - `compaction` -> a user message with the summary as pi sends it, marked `is_compact_summary`, listed in
 *   metadata.compactions with the first message it kept (`keptFromIndex`) and `preTokens`; `branch_summary` -> the
 *   user text pi sends at the start of the branch it summarizes the other one for.
 * - The id/parentId tree: every branch in file order, forks marked as `_branches.ts` marks them.
 * - `model_change`, `session_info` -> metadata; `thinking_level_change`, `label`, `custom` -> skipped by type.
 */
export async function* readPi(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  yield* readSession(file, options, 'pi');
}

/**
 * OpenClaw's sessions (`~/.openclaw/agents/<agent>/sessions/<id>.jsonl`): pi's files, written by pi's session manager
 * inside OpenClaw. A session archived by `/reset` or deleted is renamed `<id>.jsonl.reset.<time>` /
 * `<id>.jsonl.deleted.<time>` (openclaw/openclaw src/config/sessions/artifacts.ts): read the same, with `archived` and
 * `archivedAt` in metadata. A reply with no `model` takes the last `model_change` (or `model-snapshot`) model.
 */
export async function* readOpenClaw(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  yield* readSession(file, { ...options, layout: 'jsonl' }, 'openclaw');
}

const ARCHIVE = /\.jsonl\.(reset|deleted)\.(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2}(?:\.\d{3})?Z)$/;

async function* readSession(file: string, options: ReadOptions, format: 'pi' | 'openclaw'): AsyncGenerator<InputItem> {
  const session = new PiSession();
  const kept: SourcePosition[] = [];
  const { first, units } = yield* acceptRecords(readRecords(file, { ...options, layout: 'jsonl' }), ({ value, at }) => {
    const outcome = session.accept(value, at.line);
    if (outcome.kind === 'kept') kept.push(at);
    return outcome;
  });
  if (!first) return;
  if (!session.hasMessages) {
    // A header and settings, no message: nothing to make a transcript of, every line still accounted for.
    for (const at of kept) yield skippedItem(at, 'record:pi/no-message');
    return;
  }
  const built = session.finish();
  const metadata: Record<string, unknown> = { source: { format, file }, ...session.metadata };
  const archive = format === 'openclaw' ? ARCHIVE.exec(file) : null;
  if (archive) {
    metadata.archived = archive[1];
    metadata.archivedAt = `${archive[2]}T${archive[3]}:${archive[4]}:${archive[5]}`;
  }
  if (built.branchSummaries.length > 0) metadata.branchSummaries = built.branchSummaries.length;
  const id = typeof session.metadata.sessionId === 'string' ? session.metadata.sessionId : baseName(file);
  const repairs: Record<string, number> = built.moved > 0 ? { reorderedByParent: built.moved } : {};
  const indexedMetadata = (at: (index: number) => number) =>
    built.compactions.length === 0
      ? {}
      : {
          compactions: built.compactions.map((c) => ({
            ...c,
            summaryIndex: at(c.summaryIndex),
            ...(c.keptFromIndex !== undefined ? { keptFromIndex: at(c.keptFromIndex) } : {}),
          })),
        };
  yield finishTranscript({ id, messages: built.messages, metadata, warnings: built.warnings, repairs, indexedMetadata }, first, units);
}
