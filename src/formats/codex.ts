import { RolloutBuilder } from './_codex-rollout.js';
import { baseName, errorItem, finishTranscript, skippedItem } from './_items.js';
import { lineItem, readJsonl } from './_jsonl.js';
import type { InputItem, ReadOptions, SourcePosition } from './types.js';

export { isLegacySessionMeta } from './_codex-items.js';

/**
 * Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`): one transcript per file. Built from Codex's
 * source (codex-rs/protocol `RolloutItem`, `ResponseItem`, `CompactedItem`; codex-rs/core `rollout.rs` of 2025); no
 * real rollout was at hand. Two layouts: lines `{timestamp, type, payload}`, and before them (2025) a bare session meta
 * line followed by bare response items and `{"record_type":"state"}` lines (skipped).
 * - `session_meta`: id, cwd, cli_version, originator, git... go to metadata; its instructions become the system message.
 * - Every message takes its line's `timestamp`.
 * - `turn_context`: the model (metadata.models), cwd, and `truncation_policy`, which each later tool output carries
 *   (`truncation_policy`: the replay trims the output as Codex did before sending it).
 * - `token_count` events price requests by the rule of `_codex-usage.ts` (a repeat, a null and a zero price nothing);
 *   each request is one assistant message holding every output item of its response, with Codex's `last_token_usage`
 *   as its `usage` (OpenAI field names). A request that ends in `turn_aborted` with no event is `unpriced_request`.
 * - `response_item`: `message` -> a message of its role (`input_text`/`output_text` -> text, `input_image` -> image;
 *   the commentary and the answer of one response are one assistant message); `reasoning` -> `reasoning_content` of its
 *   request (summary and reasoning text; encrypted-only reasoning is counted in metadata.encryptedReasoning);
 *   `function_call`, `custom_tool_call`, `local_shell_call` -> tool calls of its request; `function_call_output`,
 *   `custom_tool_call_output` -> `tool` messages (`success: false` -> `is_error`); a `web_search_call` -> a
 *   `web_search` call of its request with an empty result marked `unrecorded`; encrypted `compaction` items ->
 *   metadata.compactions; `ghost_snapshot` and unknown items are skipped as `record:response_item/<type>`.
 * - `compacted` (Codex's own compaction): a summary in `message` becomes a user message marked `is_compact_summary`,
 *   listed in metadata.compactions; with no message, `replacement_history` (the kept messages and an encrypted summary)
 *   goes into the transcript marked `is_compact_summary`, listed with its range and `encryptedSummary`.
 * - Other `event_msg` lines repeat response items for the UI: skipped as `record:event_msg/<type>`.
 */
export async function* readCodex(file: string, options: ReadOptions): AsyncGenerator<InputItem> {
  const builder = new RolloutBuilder();
  let first: SourcePosition | undefined;
  let units = 0;
  for await (const entry of readJsonl(file, options)) {
    if (entry.kind !== 'value') {
      yield lineItem(entry);
      continue;
    }
    const outcome = builder.accept(entry.value);
    if (outcome.kind === 'error') yield errorItem(entry.at, 'E_SCHEMA', outcome.message);
    else if (outcome.kind === 'skipped') yield skippedItem(entry.at, outcome.reason);
    else {
      first ??= entry.at;
      units++;
    }
  }
  if (!first) return;
  const messages = builder.finish();
  const metadata = { source: { format: 'codex', file }, ...builder.metadata };
  const id = typeof builder.metadata.sessionId === 'string' ? builder.metadata.sessionId : baseName(file);
  yield finishTranscript({ id, messages, metadata, indexedMetadata: (at) => builder.compactionMetadata(at) }, first, units);
}
