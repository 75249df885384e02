/**
 * What fills a transcript after `checkpoint`, and what would bring it down. For each corpus folder: the tokens of the
 * kept head, of each section of the checkpoint, of the kept last request and of the protected tail, and of the
 * transcripts left unchanged (nothing outside the protected head and tail to replace), at the default budget. Then the
 * compression and the probe kinds kept (eval's "kinds mean") of variants of the note's budget and of the protected
 * tail, with the sessions split in two by a hash of the session id (a subagent goes with its session): the tuning half
 * to choose on, the held-back half to check.
 *
 *   TCOMPACT_CORPUS=../shared/datasets npx tsx bench/checkpoint-fill.ts [folder...]   (default: spotter)
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readInputs } from '../src/formats/read-inputs.js';
import { DEFAULT_MAX_LINE_BYTES } from '../src/io/line-reader.js';
import { CHECKPOINT_PREFIX } from '../src/model/compaction-marker.js';
import type { Transcript } from '../src/model/transcript.js';
import { RefSink } from '../src/refs/ref-store.js';
import { modelView } from '../src/retention/model-view.js';
import { PROBE_KINDS, extractProbes } from '../src/retention/probes.js';
import { type ProbeScore, addScore, emptyScore, recall, scoreProbes } from '../src/retention/score.js';
import { checkpoint } from '../src/strategies/checkpoint.js';
import { countMessage, countTranscript, totalOf } from '../src/tokens/breakdown.js';
import { getTokenizer } from '../src/tokens/tokenizer.js';

const corpus = process.env.TCOMPACT_CORPUS;
if (corpus === undefined || !existsSync(corpus)) {
  console.error('Set TCOMPACT_CORPUS to the shared datasets folder.');
  process.exit(2);
}
const folders = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const tok = getTokenizer('o200k_base');
const heldBack = (id: string) => createHash('sha256').update(id.split(':')[0]).digest()[0] % 2 === 1;

/** The note's sections by their titles (a request's own blank lines stay inside its section). */
const TITLES = [
  'User requests, in order',
  'Files touched:',
  'Commands run',
  'Unresolved errors',
  'Errors resolved later:',
  'Open tasks:',
  'Last user request in that span',
];

function sectionTokens(text: string, add: (k: string, n: number) => void): void {
  const starts = TITLES.map((t) => ({ t, at: text.indexOf(`\n\n${t}`) })).filter((s) => s.at >= 0);
  starts.sort((a, b) => a.at - b.at);
  add('note: header', tok.count(text.slice(0, starts[0]?.at ?? text.length)));
  starts.forEach((s, i) => add(`note: ${s.t}`, tok.count(text.slice(s.at + 2, starts[i + 1]?.at ?? text.length))));
}

const VARIANTS: [string, Record<string, unknown>][] = [
  ['default (note 0.2 chars/token; tail 10 messages, 10 results)', {}],
  ['note 0.1 chars/token', { charsPerToken: 0.1, minChars: 1000 }],
  ['note 0.05 chars/token', { charsPerToken: 0.05, minChars: 1000 }],
  ['tail 5 messages, 5 results', { keepMessages: 5, keepResults: 5 }],
  ['tail 4 messages, 3 results', { keepMessages: 4, keepResults: 3 }],
  ['tail 2 messages, 0 results', { keepMessages: 2, keepResults: 0 }],
];

interface Half {
  before: number;
  after: number;
  score: ProbeScore;
}

function kindsMean(score: ProbeScore): string {
  const r = PROBE_KINDS.map((k) => recall(score.byKind[k])).filter((x): x is number => x !== null);
  return r.length === 0 ? '–' : `${((100 * r.reduce((a, b) => a + b, 0)) / r.length).toFixed(1)}%`;
}

for (const folder of folders.length > 0 ? folders : ['spotter']) {
  const transcripts: Transcript[] = [];
  for await (const item of readInputs([join(corpus, folder, 'files')], { maxLineBytes: DEFAULT_MAX_LINE_BYTES })) {
    if (item.kind === 'transcript') transcripts.push(item.transcript);
  }
  const parts: Record<string, number> = {};
  const add = (k: string, n: number) => (parts[k] = (parts[k] ?? 0) + n);
  const rows = VARIANTS.map(([name, config]) => {
    const halves: Record<'tune' | 'held', Half> = {
      tune: { before: 0, after: 0, score: emptyScore() },
      held: { before: 0, after: 0, score: emptyScore() },
    };
    for (const t of transcripts) {
      const root = typeof t.metadata?.cwd === 'string' ? t.metadata.cwd : undefined;
      const out = checkpoint.apply(t, checkpoint.config.parse(config), { tokenizer: tok, refs: new RefSink(), window: 200_000 }).transcript;
      const half = halves[heldBack(t.id) ? 'held' : 'tune'];
      half.before += countTranscript(t, tok).total;
      const after = countTranscript(out, tok).total;
      half.after += after;
      addScore(half.score, scoreProbes(extractProbes(t), modelView(out), root === undefined ? {} : { root }).score);
      if (name !== VARIANTS[0][0]) continue;
      const at = out.messages.findIndex((m) => typeof m.content === 'string' && m.content.startsWith(CHECKPOINT_PREFIX));
      if (at < 0) {
        add('transcripts left unchanged', after);
        continue;
      }
      add('outside the messages (tool definitions)', after - out.messages.reduce((n, m) => n + totalOf(countMessage(m, tok)), 0));
      const keptRequest = out.messages[at].role === 'assistant' ? at - 1 : -1;
      out.messages.forEach((m, i) => {
        if (i === at) sectionTokens(m.content as string, add);
        else add(i === keptRequest ? 'kept last request' : i < at ? 'head' : 'protected tail', totalOf(countMessage(m, tok)));
      });
    }
    return { name, ...halves };
  });
  const all = rows[0].tune.after + rows[0].held.after;
  console.log(`\n## ${folder}: ${transcripts.length} transcripts\n\n| part (default) | tokens | share |\n| --- | ---: | ---: |`);
  for (const [k, n] of Object.entries(parts).sort((x, y) => y[1] - x[1])) console.log(`| ${k} | ${n} | ${((100 * n) / all).toFixed(1)}% |`);
  console.log(
    '\n| variant | tuning: compression | kinds mean | held back: compression | kinds mean | all: compression | kinds mean |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  const x = (h: Half) => (h.after === 0 ? '–' : `${(h.before / h.after).toFixed(2)}x`);
  const both = (a: Half, b: Half): Half => ({
    before: a.before + b.before,
    after: a.after + b.after,
    score: addScore(addScore(emptyScore(), a.score), b.score),
  });
  for (const r of rows) {
    const all = both(r.tune, r.held);
    console.log(`| ${r.name} | ${x(r.tune)} | ${kindsMean(r.tune.score)} | ${x(r.held)} | ${kindsMean(r.held.score)} | ${x(all)} | ${kindsMean(all.score)} |`);
  }
}
