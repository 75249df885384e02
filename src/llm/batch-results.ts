import type { BatchStatus } from './batch-api.js';
import { type ChatUsage, failureOfStatus, parseCompletion } from './client.js';
import type { LlmFailure } from './failure.js';

/** Why a line of a batch has no answer: the API refused it (a line of the error file), or the whole batch ended without it. */
export type UnansweredReason = 'error' | 'failed' | 'expired' | 'cancelled';

/** A line's outcome in a batch, by custom_id. */
export type BatchResult =
  { ok: true; text: string; finishReason: string | null; usage: ChatUsage | null } | { ok: false; reason: UnansweredReason; failure: LlmFailure };

interface ResultLine {
  custom_id?: unknown;
  response?: { status_code?: unknown; body?: unknown } | null;
  error?: { code?: unknown; message?: unknown } | null;
}

/** Reads the output and error files of a batch (JSONL, one line per request); a line that cannot be read is skipped. */
export function parseResults(text: string, now: number, into: Map<string, BatchResult>): void {
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') continue;
    let line: ResultLine;
    try {
      line = JSON.parse(raw) as ResultLine;
    } catch {
      continue;
    }
    if (typeof line.custom_id !== 'string') continue;
    into.set(line.custom_id, resultOf(line, now));
  }
}

function resultOf(line: ResultLine, now: number): BatchResult {
  const status = typeof line.response?.status_code === 'number' ? line.response.status_code : undefined;
  if (status !== undefined && status >= 200 && status < 300) {
    const parsed = parseCompletion(line.response?.body);
    if (parsed.ok) return { ok: true, text: parsed.value.text, finishReason: parsed.value.finishReason, usage: parsed.value.usage };
    return { ok: false, reason: 'error', failure: { ...parsed.error, status } };
  }
  if (status !== undefined) return { ok: false, reason: 'error', failure: failureOfStatus(status, line.response?.body, now) };
  const code = typeof line.error?.code === 'string' ? line.error.code : 'unknown';
  const message = typeof line.error?.message === 'string' ? line.error.message : code;
  if (code === 'batch_expired') return { ok: false, reason: 'expired', failure: { code: 'server_error', message } };
  if (code === 'batch_cancelled') return { ok: false, reason: 'cancelled', failure: { code: 'server_error', message } };
  return { ok: false, reason: 'error', failure: { code: 'server_error', message: `${code}: ${message}` } };
}

/** The result of a line a finished batch did not answer at all. */
export function unanswered(status: BatchStatus, errors: string | null): BatchResult {
  const reason: UnansweredReason = status === 'expired' ? 'expired' : status === 'cancelled' ? 'cancelled' : 'failed';
  const message =
    reason === 'expired'
      ? 'the batch expired before this request was answered'
      : reason === 'cancelled'
        ? 'the batch was cancelled before this request was answered'
        : `the batch failed${errors ? `: ${errors}` : ''}`;
  return { ok: false, reason, failure: { code: 'server_error', message } };
}
