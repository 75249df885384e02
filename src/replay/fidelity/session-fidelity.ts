import { isSyntheticReply, recordedCall, sessionTotals } from '../../model/recorded.js';
import type { Transcript } from '../../model/transcript.js';
import { recordedPromptTokens } from '../billing/recorded-usage.js';
import type { ReplayedCall } from '../replay.js';
import { type CallPrompt, type DepartureCause, departureCauses } from './departure-cause.js';

/** A call departs from its record when its replayed prompt is off by more than this share of the recorded one. */
export const CALL_DEPARTURE = 0.1;
/** A session is within the record when its replayed input is off by at most this share. */
export const SESSION_WITHIN = 0.05;
/** A session is flagged when the unlogged tokens its replay billed pass this share of its recorded input. */
export const UNLOGGED_FLAG = 0.1;

/** One figure of a session, recorded against replayed; `offBy` is replayed / recorded - 1 (null when nothing was recorded). */
export interface FidelityPair {
  recorded: number;
  replayed: number;
  offBy: number | null;
}

/** The first call whose replayed prompt is off by more than {@link CALL_DEPARTURE} of its recorded one. */
export interface CallDeparture {
  /** Its place among the replay's calls, from 1. */
  call: number;
  /** The index in the transcript's messages of the reply it produced. */
  messageIndex: number;
  /** Its prompt, in the provider's tokens as recorded and as replayed. */
  recorded: number;
  replayed: number;
  /** What the record shows since the previous call held against it (see departure-cause.ts). */
  causes: DepartureCause[];
}

/**
 * How far one session's replay departs from its record: input, cache writes and the input side of the cost with
 * caching (the output left out: Claude Code records a reply's usage mid-stream, so its output is not what was billed).
 */
export interface SessionFidelity {
  /** The policy whose replay is held against the record: `source`, the session's own compactions replayed. */
  policy: string;
  /** The calls the record holds (synthetic replies left out) and those the replay made. */
  calls: { recorded: number; replayed: number };
  /**
   * False when the source records usage only as the session's totals (model/recorded.ts `sessionTotals`): the figures
   * are held against those totals, no call against a record of its own (`calls.recorded` is 0, no departure).
   */
  perCall: boolean;
  input: FidelityPair;
  cacheWrites: FidelityPair;
  /** In US dollars: uncached input, cache writes and cache reads, each at its model's price. */
  inputCost: FidelityPair;
  /**
   * Tokens the replay billed that the log does not hold but the record shows (the token scale's `unloggedGrowth`),
   * summed over the calls that carried them, and their share of the recorded input.
   */
  unlogged: { tokens: number; share: number };
  /** Replayed calls whose reply no model produced (`isSyntheticReply`). */
  syntheticCalls: number;
  /** Absent when every call is within {@link CALL_DEPARTURE} of its record. */
  departure?: CallDeparture;
  /** The unlogged tokens billed pass {@link UNLOGGED_FLAG} of the recorded input: the replay rests on the record there. */
  unloggedFlag: boolean;
  /**
   * The known departures of the source's log from what it sent that this session holds and the reading or the replay
   * corrected (images counted as billed, replies a subagent's file logs again, an inline sidechain read apart...).
   */
  corrected: string[];
  /** What of the replay is estimated from the record rather than read from the log (the post-compaction step). */
  estimated: string[];
}

/** One replayed call as the fidelity table needs it: its billing and its input-side cost with caching. */
export interface FidelityCall extends ReplayedCall {
  prompt: number;
  inputCost: number;
}

export interface FidelityInputs {
  policy: string;
  /** Each recorded call's input-side cost with caching, at the rates of the model it is billed as. */
  recordedInputCost: (messageIndex: number) => number;
  unloggedAt: (index: number) => number;
  basePrompt: number;
  /** The input-side cost with caching of the session's recorded totals, when the source records only those. */
  totalsInputCost?: number;
  /** What the reading and the replay corrected in this session, and what of the replay is estimated from the record. */
  corrected?: readonly string[];
  estimated?: readonly string[];
}

export const pair = (recorded: number, replayed: number): FidelityPair => ({
  recorded,
  replayed,
  offBy: recorded > 0 ? replayed / recorded - 1 : null,
});

/** A session's replay held against its record, call by call; undefined when it recorded no usage. */
export function sessionFidelity(transcript: Transcript, calls: readonly FidelityCall[], inputs: FidelityInputs): SessionFidelity | undefined {
  const messages = transcript.messages;
  const recorded = { calls: 0, input: 0, written: 0, cost: 0 };
  for (const [i, m] of messages.entries()) {
    // A synthetic reply is no call the provider saw (its usage is all 0): not one of the record's calls.
    const call = m.role === 'assistant' && !isSyntheticReply(m) ? recordedCall(m) : undefined;
    if (!call) continue;
    recorded.calls++;
    recorded.input += call.uncached + call.written + call.read;
    recorded.written += call.written;
    recorded.cost += inputs.recordedInputCost(i);
  }
  if (recorded.calls === 0) return totalsFidelity(transcript, calls, inputs);
  const replayed = { input: 0, written: 0, cost: 0, unlogged: 0, synthetic: 0 };
  let departure: CallDeparture | undefined;
  let previous: (CallPrompt & { index: number }) | undefined;
  for (const [n, call] of calls.entries()) {
    replayed.input += call.prompt;
    replayed.written += call.written;
    replayed.cost += call.inputCost;
    replayed.unlogged += call.unlogged;
    const synthetic = isSyntheticReply(messages[call.messageIndex]);
    if (synthetic) replayed.synthetic++;
    // A synthetic reply billed as a call departs there: no request stands behind it, so its record is 0.
    const own = synthetic ? 0 : recordedPromptTokens(messages[call.messageIndex]);
    if (own === undefined || departure) continue;
    const prompt: CallPrompt = { recorded: own, replayed: call.prompt, unlogged: call.unlogged };
    if (Math.abs(call.prompt - own) > CALL_DEPARTURE * own) {
      const causes = departureCauses({
        messages,
        from: previous?.index ?? -1,
        to: call.messageIndex,
        call: prompt,
        ...(previous ? { previous } : {}),
        unloggedAt: inputs.unloggedAt,
        basePrompt: inputs.basePrompt,
      });
      departure = { call: n + 1, messageIndex: call.messageIndex, recorded: own, replayed: call.prompt, causes };
    }
    previous = { ...prompt, index: call.messageIndex };
  }
  const share = recorded.input > 0 ? replayed.unlogged / recorded.input : 0;
  return {
    policy: inputs.policy,
    calls: { recorded: recorded.calls, replayed: calls.length },
    perCall: true,
    input: pair(recorded.input, replayed.input),
    cacheWrites: pair(recorded.written, replayed.written),
    inputCost: pair(recorded.cost, replayed.cost),
    unlogged: { tokens: replayed.unlogged, share },
    syntheticCalls: replayed.synthetic,
    ...(departure ? { departure } : {}),
    unloggedFlag: share > UNLOGGED_FLAG,
    corrected: [...(inputs.corrected ?? [])],
    estimated: [...(inputs.estimated ?? [])],
  };
}

/** A session whose source records only its totals, held against them as a whole; undefined without totals either. */
function totalsFidelity(transcript: Transcript, calls: readonly FidelityCall[], inputs: FidelityInputs): SessionFidelity | undefined {
  const totals = sessionTotals(transcript);
  if (!totals) return undefined;
  const t = totals.tokens;
  const input = t.uncached + t.written + t.read;
  const sum = (f: (c: FidelityCall) => number) => calls.reduce((n, c) => n + f(c), 0);
  const unlogged = sum((c) => c.unlogged);
  const share = input > 0 ? unlogged / input : 0;
  return {
    policy: inputs.policy,
    calls: { recorded: 0, replayed: calls.length },
    perCall: false,
    input: pair(
      input,
      sum((c) => c.prompt),
    ),
    cacheWrites: pair(
      t.written,
      sum((c) => c.written),
    ),
    inputCost: pair(
      inputs.totalsInputCost ?? 0,
      sum((c) => c.inputCost),
    ),
    unlogged: { tokens: unlogged, share },
    syntheticCalls: calls.filter((c) => isSyntheticReply(transcript.messages[c.messageIndex])).length,
    unloggedFlag: share > UNLOGGED_FLAG,
    corrected: [...(inputs.corrected ?? [])],
    estimated: [...(inputs.estimated ?? [])],
  };
}
