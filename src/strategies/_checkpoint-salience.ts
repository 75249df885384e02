import { normalizePath } from '../model/tool-semantics.js';
import type { CheckpointFacts } from './_checkpoint-facts.js';

/**
 * What the checkpoint knows at the cut about a file, a command or an error, each a hint that the agent will need it
 * again. Only the span and its end are read, never what came after.
 * - `edited`: a file the span created or modified;
 * - `reread`: a file read twice or more, a command run twice or more;
 * - `recent`: how late in the span it was last touched (0 at the first call, 1 at the last);
 * - `named`: named in the span's last request or in an open task;
 * - `unresolved`: its last attempt failed and nothing later succeeded on it;
 * - `failed`: a command that failed at least once;
 * - `working`: touched in the last {@link WORKING_SET_CALLS} calls of the span.
 */
export const SALIENCE_SIGNALS = ['edited', 'reread', 'recent', 'named', 'unresolved', 'failed', 'working'] as const;
export type SalienceSignal = (typeof SALIENCE_SIGNALS)[number];
export type SalienceWeights = Readonly<Record<SalienceSignal, number>>;

/** The calls at the end of a span that make its working set. */
export const WORKING_SET_CALLS = 20;

/**
 * The weight of each signal. Measured, not guessed: `bench/checkpoint-salience.ts` cuts the shared corpus's sessions
 * at several points, holds the checkpoint to a tight budget, and counts the facts of each span the session used again
 * after the cut (hindsight probes) with each signal alone, all together and all but one. Recency and the working set
 * carried the weight; the others break ties among files alike in age (docs/strategies.md has the figures).
 */
export const SALIENCE_WEIGHTS: SalienceWeights = { edited: 1, reread: 1, recent: 4, named: 1, unresolved: 1, failed: 1, working: 2 };

/** Every weight zero: lists keep the order the span gave them and are cut at the end. */
export const NO_SALIENCE: SalienceWeights = { edited: 0, reread: 0, recent: 0, named: 0, unresolved: 0, failed: 0, working: 0 };

/** The text at the end of the span that says what comes next: the last request and the open tasks. */
function nextText(facts: CheckpointFacts): string {
  return [facts.requests.at(-1) ?? '', ...facts.openTodos.map((t) => t.content)].join('\n');
}

function basename(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? path : path.slice(i + 1);
}

/** Whether `text` names the path, whole or by a file name distinctive enough (a dot and 4+ characters). */
function names(text: string, path: string): boolean {
  const p = normalizePath(path);
  if (p !== '' && text.includes(p)) return true;
  const base = basename(p);
  return base.length >= 4 && base.includes('.') && text.includes(base);
}

function score(signals: Partial<Record<SalienceSignal, number>>, weights: SalienceWeights): number {
  let s = 0;
  for (const k of SALIENCE_SIGNALS) s += (signals[k] ?? 0) * weights[k];
  return s;
}

function recency(last: number, calls: number): number {
  return calls <= 1 ? 1 : last / (calls - 1);
}

/** The salience of each list's items, in the lists' own order (higher: keep first when the list must be cut). */
export interface Salience {
  files: number[];
  commands: number[];
  errors: number[];
}

export function salienceOf(facts: CheckpointFacts, weights: SalienceWeights = SALIENCE_WEIGHTS): Salience {
  const next = nextText(facts);
  const working = (last: number) => (last >= facts.calls - WORKING_SET_CALLS ? 1 : 0);
  return {
    files: facts.files.map((f) =>
      score(
        {
          edited: f.actions.includes('created') || f.actions.includes('modified') ? 1 : 0,
          reread: f.reads >= 2 ? 1 : 0,
          recent: recency(f.last, facts.calls),
          named: names(next, f.path) ? 1 : 0,
          unresolved: f.unresolved ? 1 : 0,
          working: working(f.last),
        },
        weights,
      ),
    ),
    commands: facts.commands.map((c) =>
      score(
        {
          reread: c.runs >= 2 ? 1 : 0,
          recent: recency(c.last, facts.calls),
          named: next.includes(c.command) ? 1 : 0,
          unresolved: c.lastFailure !== undefined ? 1 : 0,
          failed: c.failedRuns > 0 ? 1 : 0,
          working: working(c.last),
        },
        weights,
      ),
    ),
    errors: facts.errors.map((e) => score({ recent: recency(e.last, facts.calls), unresolved: e.resolved ? 0 : 1, working: working(e.last) }, weights)),
  };
}
