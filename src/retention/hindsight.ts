import { type Message, isRole } from '../model/message.js';
import { isSourceSummary } from '../model/recorded.js';
import { keyPhrases } from './key-phrases.js';
import { type MatchOptions, isRetained } from './matching.js';
import { type ModelView, viewOfMessages } from './model-view.js';
import { type Probe, extractProbes } from './probes.js';
import { requestText } from './requests.js';
import type { Tally } from './score.js';

/** Why the agent needed a fact again after a compaction point. */
export const HINDSIGHT_REASONS = ['path', 'command', 'error', 'correction'] as const;
export type HindsightReason = (typeof HINDSIGHT_REASONS)[number];

/**
 * A fact from before a compaction point that the session used again after it: a probe of the history (eval's
 * artifact, command, error or intent probe, retained under the same rule) and why it counts.
 * - `path`: a file read, created or edited before the point and read, edited or named again after it;
 * - `command`: a shell command run before the point and run again after it;
 * - `error`: a failed result's first line before the point, or an identifier in it, that a later message names;
 * - `correction`: a request before the point that a later user message corrects ("no, I said...") and restates.
 */
export interface HindsightProbe {
  reason: HindsightReason;
  probe: Probe;
}

/** A later user message that corrects the agent: opens with a refusal or a restatement. */
const CORRECTION =
  /^(no\b|nope\b|wrong\b|not (that|what)\b|that'?s not\b|i (said|meant|asked)\b|actually\b|instead\b|don'?t\b|stop\b|you (forgot|missed|didn'?t)\b)/i;

/** Identifiers worth looking for in later text: an exception name, or a camelCase, snake_case or dotted name of 6+ characters. */
const IDENTIFIER = /\b(?:[A-Za-z_$][\w$]*(?:Error|Exception)|[a-z]+[A-Z][\w$]*|[A-Za-z]+_[\w]+|[A-Za-z_]\w*\.[A-Za-z_]\w+)\b/g;

function identifiersOf(line: string): string[] {
  return [...new Set(line.match(IDENTIFIER) ?? [])].filter((id) => id.length >= 6);
}

/**
 * The hindsight probes of a compaction point: `before` is the history the compaction replaced (up to the point),
 * `after` what the session did next. Deterministic, in reason order, each reason in order of first appearance.
 */
export function hindsightProbes(before: readonly Message[], after: readonly Message[]): HindsightProbe[] {
  const past = extractProbes({ messages: before });
  const later = extractProbes({ messages: after });
  const laterText = viewOfMessages(after).text;
  const out: HindsightProbe[] = [];

  const laterPaths = new Set(later.flatMap((p) => (p.kind === 'artifact' ? [p.path] : [])));
  for (const p of past) {
    if (p.kind !== 'artifact') continue;
    if (laterPaths.has(p.path) || p.spellings.some((s) => laterText.includes(s))) out.push({ reason: 'path', probe: p });
  }
  const laterCommands = new Set(later.flatMap((p) => (p.kind === 'command' ? [p.command] : [])));
  for (const p of past) if (p.kind === 'command' && laterCommands.has(p.command)) out.push({ reason: 'command', probe: p });
  for (const p of past) {
    if (p.kind !== 'error') continue;
    if (laterText.includes(p.line) || identifiersOf(p.line).some((id) => laterText.includes(id))) out.push({ reason: 'error', probe: p });
  }

  const requests = past.flatMap((p) => (p.kind === 'intent' && p.match === 'phrases' ? [p] : []));
  const corrected = new Set<Probe>();
  for (const m of after) {
    if (!isRole(m, 'user')) continue;
    const text = requestText(m);
    if (text === undefined || !CORRECTION.test(text)) continue;
    const phrases = new Set(keyPhrases(text));
    let best: { probe: Probe; shared: number } | undefined;
    for (const r of requests) {
      const shared = keyPhrases(r.text).filter((k) => phrases.has(k)).length;
      if (shared > 0 && (best === undefined || shared > best.shared)) best = { probe: r, shared };
    }
    if (best && !corrected.has(best.probe)) {
      corrected.add(best.probe);
      out.push({ reason: 'correction', probe: best.probe });
    }
  }
  return out;
}

/**
 * The hindsight probes of an edit before the message at each index of `messages` (the source's summaries left out on
 * both sides), each index's computed once: every policy that edits before the same reply asks for the same.
 */
export function hindsightProbesAt(messages: readonly Message[]): (index: number) => HindsightProbe[] {
  const byIndex = new Map<number, HindsightProbe[]>();
  return (index) => {
    let probes = byIndex.get(index);
    if (!probes) {
      probes = hindsightProbes(
        messages.slice(0, index).filter((m) => !isSourceSummary(m)),
        messages.slice(index).filter((m) => !isSourceSummary(m)),
      );
      byIndex.set(index, probes);
    }
    return probes;
  };
}

/** Hindsight probes retained, by reason and over all. */
export interface HindsightScore {
  byReason: Record<HindsightReason, Tally>;
  overall: Tally;
}

export function emptyHindsightScore(): HindsightScore {
  const byReason = Object.fromEntries(HINDSIGHT_REASONS.map((r) => [r, { probes: 0, retained: 0 }])) as Record<HindsightReason, Tally>;
  return { byReason, overall: { probes: 0, retained: 0 } };
}

/** Scores hindsight probes against a compacted context, under eval's retention rule for the probe they carry. */
export function scoreHindsight(probes: readonly HindsightProbe[], view: ModelView, options: MatchOptions = {}): HindsightScore {
  const score = emptyHindsightScore();
  for (const h of probes) {
    const kept = isRetained(h.probe, view, options);
    for (const t of [score.byReason[h.reason], score.overall]) {
      t.probes++;
      if (kept) t.retained++;
    }
  }
  return score;
}

export function addHindsightScore(into: HindsightScore, from: HindsightScore): HindsightScore {
  for (const r of HINDSIGHT_REASONS) {
    into.byReason[r].probes += from.byReason[r].probes;
    into.byReason[r].retained += from.byReason[r].retained;
  }
  into.overall.probes += from.overall.probes;
  into.overall.retained += from.overall.retained;
  return into;
}
