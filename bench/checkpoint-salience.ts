/**
 * Which salience signals keep what a session needs again when the checkpoint must drop. Cuts each session of the shared
 * corpus at a third, a half and two thirds of its messages, renders the checkpoint of everything before the cut at a
 * tight budget with each signal alone, all of them, and all but one, and counts the span's facts the session used
 * again after the cut (hindsight probes: paths, commands, errors) that the checkpoint still holds. Sessions are split
 * in two by a hash of their id: the weights are chosen on the first half and checked on the held-back half.
 *
 *   TCOMPACT_CORPUS=../shared/datasets npx tsx bench/checkpoint-salience.ts [--budget 0.02]
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readInputs } from '../src/formats/read-inputs.js';
import { DEFAULT_MAX_LINE_BYTES } from '../src/io/line-reader.js';
import { type Message, isTool } from '../src/model/message.js';
import type { Transcript } from '../src/model/transcript.js';
import { isSourceSummary } from '../src/model/recorded.js';
import { HINDSIGHT_REASONS, type HindsightScore, addHindsightScore, emptyHindsightScore, hindsightProbes, scoreHindsight } from '../src/retention/hindsight.js';
import { viewOfMessages } from '../src/retention/model-view.js';
import { extractFacts } from '../src/strategies/_checkpoint-facts.js';
import { NO_SALIENCE, SALIENCE_SIGNALS, SALIENCE_WEIGHTS, type SalienceWeights } from '../src/strategies/_checkpoint-salience.js';
import { renderCheckpoint } from '../src/strategies/checkpoint.js';
import { countMessage, totalOf } from '../src/tokens/breakdown.js';
import { getTokenizer } from '../src/tokens/tokenizer.js';

const FOLDERS = ['spotter', 'session-share', 'swe-agent', 'openhands'];
const CUTS = [1 / 3, 1 / 2, 2 / 3];

const corpus = process.env.TCOMPACT_CORPUS;
if (corpus === undefined || !existsSync(corpus)) {
  console.error('Set TCOMPACT_CORPUS to the shared datasets folder.');
  process.exit(2);
}
const budgetArg = process.argv.indexOf('--budget');
const charsPerToken = budgetArg > 0 ? Number(process.argv[budgetArg + 1]) : 0.02;
const tok = getTokenizer('o200k_base');

async function load(): Promise<Transcript[]> {
  const out: Transcript[] = [];
  for (const f of FOLDERS) {
    for await (const item of readInputs([join(corpus as string, f, 'files')], { maxLineBytes: DEFAULT_MAX_LINE_BYTES })) {
      if (item.kind === 'transcript') out.push(item.transcript);
    }
  }
  return out;
}

/** The cut at `share` of the messages, moved past tool results so a call and its result stay together. */
function cutAt(messages: readonly Message[], share: number): number {
  let cut = Math.floor(messages.length * share);
  while (cut < messages.length && isTool(messages[cut])) cut++;
  return cut;
}

const heldBack = (id: string) => createHash('sha256').update(id).digest()[0] % 2 === 1;

interface Span {
  held: boolean;
  span: Message[];
  after: Message[];
  root?: string;
  budget: number;
}

function variants(): [string, SalienceWeights][] {
  const out: [string, SalienceWeights][] = [
    ['in order (no salience)', NO_SALIENCE],
    ['all (SALIENCE_WEIGHTS)', SALIENCE_WEIGHTS],
  ];
  for (const s of SALIENCE_SIGNALS) out.push([`${s} alone`, { ...NO_SALIENCE, [s]: 1 }]);
  for (const s of SALIENCE_SIGNALS) out.push([`all but ${s}`, { ...SALIENCE_WEIGHTS, [s]: 0 }]);
  // Candidates built from what the tuning half showed (recency and the working set carry the weight).
  out.push(['recent + working', { ...NO_SALIENCE, recent: 1, working: 1 }]);
  out.push(['recent 2 + working 1', { ...NO_SALIENCE, recent: 2, working: 1 }]);
  out.push(['recent 4, working 2, the rest 1', { edited: 1, reread: 1, recent: 4, named: 1, unresolved: 1, failed: 1, working: 2 }]);
  out.push(['recent 4, working 1, the rest 0.5', { edited: 0.5, reread: 0.5, recent: 4, named: 0.5, unresolved: 0.5, failed: 0.5, working: 1 }]);
  return out;
}

function pct(score: HindsightScore, reason?: (typeof HINDSIGHT_REASONS)[number]): string {
  const t = reason === undefined ? score.overall : score.byReason[reason];
  return t.probes === 0 ? '–' : `${t.retained}/${t.probes}`;
}

async function main(): Promise<void> {
  const spans: Span[] = [];
  for (const t of await load()) {
    const messages = t.messages;
    if (messages.length < 30) continue;
    const root = typeof t.metadata?.cwd === 'string' ? t.metadata.cwd : undefined;
    for (const share of CUTS) {
      const cut = cutAt(messages, share);
      const span = messages.slice(0, cut);
      const after = messages.slice(cut).filter((m) => !isSourceSummary(m));
      let tokens = 0;
      for (const m of span) tokens += totalOf(countMessage(m, tok));
      spans.push({ held: heldBack(t.id), span, after, ...(root === undefined ? {} : { root }), budget: Math.max(1000, Math.round(tokens * charsPerToken)) });
    }
  }
  const rows = variants().map(([name, weights]) => {
    const score = { tune: emptyHindsightScore(), held: emptyHindsightScore() };
    for (const s of spans) {
      const probes = hindsightProbes(s.span, s.after);
      const text = renderCheckpoint(extractFacts(s.span), s.span.length, undefined, s.budget, { weights, ...(s.root === undefined ? {} : { root: s.root }) });
      const view = viewOfMessages([{ role: 'user', content: text }]);
      addHindsightScore(s.held ? score.held : score.tune, scoreHindsight(probes, view, s.root === undefined ? {} : { root: s.root }));
    }
    return { name, ...score };
  });
  const tuneSpans = spans.filter((s) => !s.held).length;
  console.log(
    `${spans.length} spans (${tuneSpans} tuning, ${spans.length - tuneSpans} held back), budget ${charsPerToken} chars per span token, at least 1,000`,
  );
  console.log('| weights | tuning: paths | commands | errors | all | held back: paths | commands | errors | all |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    const cells = (s: HindsightScore) => [pct(s, 'path'), pct(s, 'command'), pct(s, 'error'), pct(s)];
    console.log(`| ${r.name} | ${[...cells(r.tune), ...cells(r.held)].join(' | ')} |`);
  }
}

await main();
