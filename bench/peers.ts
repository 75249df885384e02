import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pruneMessages, type ModelMessage } from 'ai';
import { trimMessages, type BaseMessage } from '@langchain/core/messages';
import { lastUserRequestIndex, findViolations } from '../src/model/validity.js';
import type { Transcript } from '../src/model/transcript.js';
import { countTranscript } from '../src/tokens/breakdown.js';
import { getTokenizer } from '../src/tokens/tokenizer.js';
import { loadCanonical, unavailableReason, type LoadedCorpus } from './lib/canonical.js';
import { CHECK_WINDOW, largestSession, measureCheckLatency, type CheckLatency, type LatencyFigures } from './lib/check-latency.js';
import { realCorpora, type CorpusSpec } from './lib/corpora.js';
import { freshTokenizer } from './lib/fresh-tokenizer.js';
import { BUNDLED, ROOT } from './lib/paths.js';
import { fromModelMessages, toModelMessages } from '../src/adapters/ai-sdk/model-messages.js';
import { type CallIndex, indexCalls } from '../src/adapters/call-index.js';
import { fromLangChain, toLangChain } from '../src/adapters/langchain/langchain-messages.js';
import { langChainCounter } from './lib/langchain-counter.js';
import type { Benchmark, BenchContext, BenchOutput, Cell, Ratio, Table } from './lib/results.js';
import { applyAll, freshContext, loadStrategies, runAll, stepsFor } from './lib/tcompact-steps.js';
import { runTiny, type TinyTask } from './lib/tiny.js';

/** Targets for one `ContextManager.check()` on the largest Claude Code session, in ms per call. */
const CHECK_MEDIAN_TARGET_MS = 2;
const CHECK_P99_TARGET_MS = 20;

/** LangChain trims to a budget; this is the share of each transcript's tokens it is asked to keep. */
const LANGCHAIN_BUDGET = 0.5;

interface Method {
  name: string;
  /** What it does, for the table notes. */
  mapping: string;
}

const TCOMPACT_STRIP: Method = {
  name: 'tcompact strip-reasoning + strip-tool-results',
  mapping: 'reasoning removed and tool results replaced by a one-line stub outside the last turn; calls kept',
};
const TCOMPACT_STRIP_APPLY: Method = {
  name: 'tcompact strip-reasoning + strip-tool-results, apply only',
  mapping:
    'the same steps without token accounting (pruneMessages counts nothing either); it still keeps every replaced piece in the refs store (a SHA-256 per piece), which pruneMessages does not',
};
const TCOMPACT_STRIP_APPLY_NO_REFS: Method = {
  name: 'tcompact strip-reasoning + strip-tool-results, apply only, no refs',
  mapping:
    'the same, keeping nothing (as pruneMessages, and as `--no-refs` or a ContextManager without a side store): what the side store costs is the difference to the row above',
};
const TCOMPACT_AUTO: Method = { name: 'tcompact auto', mapping: 'the default pipeline (see the strategies issue)' };
const AI_PRUNE: Method = {
  name: 'AI SDK pruneMessages',
  mapping:
    "reasoning: 'before-last-message', toolCalls: 'before-last-N-messages' with N = the messages of the last turn, emptyMessages: 'remove' (calls and results both removed)",
};
const LC_TRIM: Method = {
  name: 'LangChain trimMessages',
  mapping: `strategy 'last', maxTokens = ${LANGCHAIN_BUDGET * 100}% of the transcript's tokens, includeSystem, startOn 'human', token counter = tcompact's o200k_base counting rules`,
};

interface Outcome {
  corpus: string;
  method: string;
  meanMs: number | null;
  messagesPerSec: number | null;
  mbPerSec: number | null;
  /** Tokens of the input as this method sees it (after conversion to its format and back, unpruned). */
  tokensBefore: number;
  tokensAfter: number;
  messagesAfter: number;
  /** Transcripts whose output breaks a tool-call pairing rule or lost the last user request. */
  invalid: number;
  /** Transcripts whose first user message (the task) is gone. */
  taskLost: number;
  /** One-off conversion cost into the peer's message type, not included in meanMs. */
  conversionMs?: number;
}

function lastTurnLength(t: Transcript): number {
  const i = lastUserRequestIndex(t.messages);
  return i < 0 ? t.messages.length : t.messages.length - i;
}

function firstUserText(t: Transcript): string | undefined {
  const m = t.messages.find((x) => x.role === 'user');
  return m ? JSON.stringify(m.content) : undefined;
}

function judge(corpus: string, method: Method, inputs: readonly Transcript[], outputs: readonly Transcript[], meanMs: number | null, c: LoadedCorpus): Outcome {
  const tok = getTokenizer('o200k_base');
  let before = 0;
  let after = 0;
  let messagesAfter = 0;
  let invalid = 0;
  let taskLost = 0;
  outputs.forEach((out, i) => {
    const input = inputs[i];
    before += countTranscript(input, tok).total;
    after += countTranscript(out, tok).total;
    messagesAfter += out.messages.length;
    const lastIn = input.messages[lastUserRequestIndex(input.messages)];
    const lastOut = out.messages[lastUserRequestIndex(out.messages)];
    if (findViolations(out.messages).length > 0 || (lastIn && JSON.stringify(lastIn) !== JSON.stringify(lastOut))) invalid++;
    const task = firstUserText(input);
    if (task !== undefined && !out.messages.some((m) => m.role === 'user' && JSON.stringify(m.content) === task)) taskLost++;
  });
  const s = meanMs === null ? null : meanMs / 1000;
  return {
    corpus,
    method: method.name,
    meanMs,
    messagesPerSec: s === null ? null : c.messages / s,
    mbPerSec: s === null ? null : c.canonicalBytes / 1e6 / s,
    tokensBefore: before,
    tokensAfter: after,
    messagesAfter,
    invalid,
    taskLost,
  };
}

export const peersBench: Benchmark = {
  name: 'peers',
  entry: import.meta.url,
  title: 'Peers: Vercel AI SDK pruneMessages and LangChain trimMessages vs tcompact, same transcripts',
  description:
    'The nearest equivalent each library offers, run in the same process on the same canonical transcripts, one core, ' +
    "tinybench. Transcripts are converted to each library's message type once, untimed (the conversion time is shown " +
    "apart); the outputs are converted back and counted by tcompact's exact o200k_base counter on the canonical form. " +
    'tcompact rows include its token accounting (each step counts before and after, exact tokenizer, empty cache per ' +
    'iteration); pruneMessages counts nothing; trimMessages counts through the counter it is given (o200k_base, cached ' +
    'per text like tcompact\'s). "invalid" = outputs that break tool-call pairing or changed the last user request; ' +
    '"task lost" = outputs without the first user message.',
  async run(ctx: BenchContext): Promise<BenchOutput> {
    const { strategies, presets } = await loadStrategies();
    const hasStrip = strategies.includes('strip-reasoning') && strategies.includes('strip-tool-results');
    const hasAuto = presets.includes('auto');
    const pending: string[] = [];
    if (!hasStrip) pending.push('not yet available: strip-reasoning / strip-tool-results are not registered');
    if (!hasAuto) pending.push('not yet available: the `auto` preset is not registered');
    const specs: CorpusSpec[] = ctx.quick
      ? [...realCorpora(true), { name: 'synthetic 1 MB (seed 3)', kind: 'synthetic', seed: 3, bytes: 1_000_000 }]
      : [...realCorpora(false), { name: 'synthetic 8 MB (seed 3)', kind: 'synthetic', seed: 3, bytes: 8_000_000 }];
    const outcomes: Outcome[] = [];
    for (const spec of specs) {
      const corpus = await loadCanonical(spec, ctx.tmpDir);
      if (corpus.transcripts.length === 0) {
        pending.push(unavailableReason(corpus));
        continue;
      }
      ctx.log(`peers: ${corpus.name}: ${corpus.transcripts.length} transcripts, ${corpus.messages} messages`);
      const ts = corpus.transcripts;
      const indexes: CallIndex[] = ts.map((t) => indexCalls(t.messages));

      let t0 = performance.now();
      const model: ModelMessage[][] = ts.map((t) => toModelMessages(t.messages));
      const aiConversionMs = performance.now() - t0;
      const keep = ts.map(lastTurnLength);
      const prune = () =>
        model.map((m, i) =>
          pruneMessages({ messages: m, reasoning: 'before-last-message', toolCalls: `before-last-${keep[i]}-messages`, emptyMessages: 'remove' }),
        );

      t0 = performance.now();
      const lc: BaseMessage[][] = ts.map((t) => toLangChain(t.messages));
      const lcConversionMs = performance.now() - t0;
      const exact = getTokenizer('o200k_base');
      const budgets = lc.map((m, i) => Math.floor(langChainCounter((x) => exact.count(x), indexes[i])(m) * LANGCHAIN_BUDGET));
      const trim = async () => {
        const tok = freshTokenizer('o200k_base');
        const out: BaseMessage[][] = [];
        for (let i = 0; i < lc.length; i++) {
          out.push(
            await trimMessages(lc[i], {
              maxTokens: budgets[i],
              tokenCounter: langChainCounter((x) => tok.count(x), indexes[i]),
              strategy: 'last',
              includeSystem: true,
              startOn: 'human',
            }),
          );
        }
        return out;
      };

      const tasks: TinyTask[] = [
        { name: AI_PRUNE.name, fn: prune },
        { name: LC_TRIM.name, fn: trim },
      ];
      const stripSteps = hasStrip ? stepsFor(['strip-reasoning', 'strip-tool-results'], 'o200k_base') : null;
      const autoSteps = hasAuto ? stepsFor(['auto'], 'o200k_base') : null;
      if (stripSteps) {
        tasks.push({ name: TCOMPACT_STRIP_APPLY.name, fn: () => applyAll(ts, stripSteps, freshContext('heuristic')) });
        tasks.push({ name: TCOMPACT_STRIP_APPLY_NO_REFS.name, fn: () => applyAll(ts, stripSteps, { ...freshContext('heuristic'), refs: null }) });
        tasks.push({ name: TCOMPACT_STRIP.name, fn: () => runAll(ts, stripSteps, freshContext('o200k_base')) });
      }
      if (autoSteps) tasks.push({ name: TCOMPACT_AUTO.name, fn: () => runAll(ts, autoSteps, freshContext('o200k_base')) });
      const timed = await runTiny(tasks, ctx.quick);
      const mean = (name: string) => timed.find((r) => r.name === name)?.meanMs ?? null;
      for (const r of timed) if (r.error) pending.push(`${corpus.name}: ${r.name} failed: ${r.error}`);

      // Outputs of one more untimed run, judged on the canonical form. The peers' inputs are the round-tripped
      // transcripts (unknown roles have no equivalent there), so their savings are measured against what they got.
      const aiBase = model.map((m, i) => ({ id: ts[i].id, messages: fromModelMessages(m, indexes[i]) }));
      const aiOut = prune().map((m, i) => ({ id: ts[i].id, messages: fromModelMessages(m, indexes[i]) }));
      outcomes.push({ ...judge(corpus.name, AI_PRUNE, aiBase, aiOut, mean(AI_PRUNE.name), corpus), conversionMs: aiConversionMs });
      const lcBase = lc.map((m, i) => ({ id: ts[i].id, messages: fromLangChain(m, indexes[i]) }));
      const lcOut = (await trim()).map((m, i) => ({ id: ts[i].id, messages: fromLangChain(m, indexes[i]) }));
      outcomes.push({ ...judge(corpus.name, LC_TRIM, lcBase, lcOut, mean(LC_TRIM.name), corpus), conversionMs: lcConversionMs });
      if (stripSteps)
        outcomes.push(
          judge(corpus.name, TCOMPACT_STRIP_APPLY, ts, applyAll(ts, stripSteps, freshContext('heuristic')), mean(TCOMPACT_STRIP_APPLY.name), corpus),
        );
      if (stripSteps) {
        const noRefs = applyAll(ts, stripSteps, { ...freshContext('heuristic'), refs: null });
        outcomes.push(judge(corpus.name, TCOMPACT_STRIP_APPLY_NO_REFS, ts, noRefs, mean(TCOMPACT_STRIP_APPLY_NO_REFS.name), corpus));
      }
      if (stripSteps)
        outcomes.push(
          judge(
            corpus.name,
            TCOMPACT_STRIP,
            ts,
            runAll(ts, stripSteps, freshContext('o200k_base')).map((r) => r.transcript),
            mean(TCOMPACT_STRIP.name),
            corpus,
          ),
        );
      if (autoSteps)
        outcomes.push(
          judge(
            corpus.name,
            TCOMPACT_AUTO,
            ts,
            runAll(ts, autoSteps, freshContext('o200k_base')).map((r) => r.transcript),
            mean(TCOMPACT_AUTO.name),
            corpus,
          ),
        );
    }
    const table: Table = {
      title: 'tcompact vs peers (one core, in memory)',
      columns: ['corpus', 'method', 'messages/s', 'MB/s', 'tokens before', 'tokens after', 'saved', 'invalid', 'task lost', 'conversion ms (untimed)'],
      rows: outcomes.map((o): Cell[] => [
        o.corpus,
        o.method,
        o.messagesPerSec,
        o.mbPerSec,
        o.tokensBefore,
        o.tokensAfter,
        o.tokensBefore > 0 ? `${(((o.tokensBefore - o.tokensAfter) / o.tokensBefore) * 100).toFixed(1)}%` : '',
        o.invalid,
        o.taskLost,
        o.conversionMs ?? '',
      ]),
      notes: [AI_PRUNE, LC_TRIM, TCOMPACT_STRIP, TCOMPACT_STRIP_APPLY, TCOMPACT_STRIP_APPLY_NO_REFS, TCOMPACT_AUTO].map((m) => `${m.name}: ${m.mapping}.`),
      headline: true,
    };
    // Headline ratios on the reference real corpus and the synthetic one; the table has every corpus.
    const ratios: Ratio[] = [];
    const headline = [specs[0].name, specs[specs.length - 1].name];
    for (const corpus of headline.filter((c) => outcomes.some((o) => o.corpus === c))) {
      const speed = (m: Method) => outcomes.find((o) => o.corpus === corpus && o.method === m.name)?.messagesPerSec ?? null;
      const r = (a: Method, b: Method): Ratio => {
        const x = speed(a);
        const y = speed(b);
        return { name: `${corpus}: ${a.name} / ${b.name}, messages/s`, value: x !== null && y !== null ? x / y : null };
      };
      ratios.push(r(TCOMPACT_STRIP_APPLY, AI_PRUNE), r(TCOMPACT_STRIP_APPLY_NO_REFS, AI_PRUNE), r(TCOMPACT_AUTO, LC_TRIM));
    }
    const replays = ctx.quick ? 1 : 5;
    const latencies: CheckLatency[] = [];
    for (const spec of checkSessions()) {
      const corpus = await loadCanonical(spec, ctx.tmpDir);
      const session = largestSession(corpus.transcripts.filter((t) => (t.metadata?.source as { format?: string } | undefined)?.format === 'claude-code'));
      if (!session) {
        pending.push(`${spec.name}: no Claude Code session to run ContextManager.check() on`);
        continue;
      }
      ctx.log(`peers: ContextManager.check() on the largest session of ${spec.name} (${session.messages.length} messages), ${replays} replay(s)`);
      const l = await measureCheckLatency(spec.name, session, replays);
      latencies.push(l);
      ratios.push(
        {
          name: `${spec.name}, largest session: ContextManager.check() median per call`,
          value: l.check.medianMs,
          unit: ' ms',
          target: `<= ${CHECK_MEDIAN_TARGET_MS}`,
          met: l.check.medianMs <= CHECK_MEDIAN_TARGET_MS,
        },
        {
          name: `${spec.name}, largest session: ContextManager.check() p99 per call`,
          value: l.check.p99Ms,
          unit: ' ms',
          target: `<= ${CHECK_P99_TARGET_MS}`,
          met: l.check.p99Ms <= CHECK_P99_TARGET_MS,
        },
        ...l.adapters.flatMap(({ name, figures }) => [
          {
            name: `${spec.name}, largest session: ${name} median per call`,
            value: figures.medianMs,
            unit: ' ms',
            target: `<= ${CHECK_MEDIAN_TARGET_MS}`,
            met: figures.medianMs <= CHECK_MEDIAN_TARGET_MS,
          },
          {
            name: `${spec.name}, largest session: ${name} p99 per call`,
            value: figures.p99Ms,
            unit: ' ms',
            target: `<= ${CHECK_P99_TARGET_MS}`,
            met: figures.p99Ms <= CHECK_P99_TARGET_MS,
          },
        ]),
      );
    }
    const latencyRow = (l: CheckLatency, method: string, f: LatencyFigures): Cell[] => [
      l.session,
      l.messages,
      l.tokens,
      method,
      f.calls,
      f.medianMs,
      f.p99Ms,
      f.maxMs,
      f.samples,
    ];
    const latencyTable: Table = {
      title: 'ContextManager.check() and the runtime adapters per call beside pruneMessages, largest Claude Code session (one core, in memory)',
      columns: ['corpus', 'messages', 'tokens', 'call', 'calls per replay', 'median ms', 'p99 ms', 'max ms', 'samples'],
      rows: latencies.flatMap((l) => [
        latencyRow(l, 'ContextManager.check()', l.check),
        ...l.adapters.map((a) => latencyRow(l, a.name, a.figures)),
        latencyRow(l, AI_PRUNE.name, l.prune),
      ]),
      notes: [
        `ContextManager.check({ messages, tokens, at }) with the default options (window ${CHECK_WINDOW.toLocaleString('en-US')}, cache anthropic-5m, mask-observations edits, auto at 90%), called before each assistant reply with the prompt it returned last time plus the messages since, as an agent loop calls it; tokens are counted before each call (o200k_base), untimed; \`at\` is the session's own clock where recorded. A fresh manager per replay, after one untimed warm-up replay.`,
        "The adapters (tcompact/ai-sdk, tcompact/langchain, tcompact/anthropic): the same options and clock, each call taking the runtime's whole history so far (built once in its shape, untimed) through conversion to canonical messages, check() and conversion back (and the Anthropic breakpoints); a fresh adapter per replay, after one untimed warm-up replay.",
        `${AI_PRUNE.name}: the same options as above, on the session's unedited prefix before each assistant reply (converted once, untimed).`,
        ...latencies.map(
          (l) =>
            `${l.session}: the checks' reasons over one replay: ${Object.entries(l.reasons)
              .map(([r, n]) => `${r} ${n}`)
              .join(', ')}.`,
        ),
      ],
      headline: true,
    };
    return {
      params: {
        corpora: specs.map((s) => s.name),
        langchainBudget: LANGCHAIN_BUDGET,
        ai: peerVersion('ai'),
        langchain: peerVersion('@langchain/core'),
        checkSessions: latencies.map((l) => l.session),
        checkReplays: replays,
      },
      results: { methods: outcomes, checkLatency: latencies },
      tables: [table, latencyTable],
      ratios,
      pending,
    };
  },
};

/**
 * Where `ContextManager.check()` is timed: the bundled Claude Code sessions and, with TCOMPACT_CORPUS set, the shared
 * corpus's Claude Code folders.
 */
function checkSessions(): CorpusSpec[] {
  const specs: CorpusSpec[] = [{ name: 'claude-code (bundled)', kind: 'files', inputs: [join(BUNDLED, 'claude-code')] }];
  const corpus = process.env.TCOMPACT_CORPUS;
  if (corpus) {
    const inputs = ['spotter', 'session-share'].map((d) => join(resolve(corpus), d, 'files')).filter((p) => existsSync(p));
    if (inputs.length > 0) specs.push({ name: 'Claude Code sessions of TCOMPACT_CORPUS (spotter, session-share)', kind: 'files', inputs });
  }
  return specs;
}

/** The installed version of a peer, for the results file. */
function peerVersion(pkg: string): string {
  try {
    return (JSON.parse(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}
