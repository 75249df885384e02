import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { restoreCommand } from '../../src/cli/commands/restore.js';
import { canonicalJson } from '../../src/io/canonical-json.js';
import { isAssistant } from '../../src/model/message.js';
import { describeToolCall, normalizePath } from '../../src/model/tool-semantics.js';
import type { Transcript } from '../../src/model/transcript.js';
import { RefSink } from '../../src/refs/ref-store.js';
import { restoreTranscript } from '../../src/refs/restore.js';
import { callSites, failedOrMissing } from '../../src/strategies/_call-sites.js';
import { compactTranscript } from '../../src/strategies/compact-transcript.js';
import { createDedupTools, rangeSubsumes } from '../../src/strategies/dedup-tools.js';
import { DEFAULT_TOOL_HINTS } from '../../src/strategies/tool-hints.js';
import { buildSteps, stepFor } from '../../src/strategies/build-steps.js';
import { parseCompactConfig } from '../../src/strategies/compact-config.js';
import { STRATEGIES } from '../../src/strategies/registry.js';
import type { PipelineStep } from '../../src/strategies/runner.js';
import { deepFreeze, expectInvariants, makeContext } from '../helpers/transcript-kit.js';
import { realSessions } from '../helpers/real-sessions.js';
import { hasCorpus } from '../helpers/corpus.js';
import { tempDir } from '../helpers/temp-dir.js';

const roundTrip = (t: Transcript): Transcript => JSON.parse(JSON.stringify(t)) as Transcript;

/**
 * Compacts every session, checks the invariants, and restores the output as `restore` reads it (parsed back from its
 * JSON line): the result must be the input byte for byte. Returns the tokens saved and the summed step details.
 */
function compactAll(sessions: readonly Transcript[], steps: PipelineStep[], window = 200_000) {
  let saved = 0;
  let changed = 0;
  const details: Record<string, number> = {};
  for (const input of sessions) {
    const ctx = { ...makeContext(), window };
    const r = compactTranscript(input, steps, ctx);
    expectInvariants(input, r.transcript);
    expect(r.tokensAfter).toBeLessThanOrEqual(r.tokensBefore);
    saved += r.tokensBefore - r.tokensAfter;
    if (r.transcript !== input) changed++;
    for (const s of r.steps) for (const [k, v] of Object.entries(s.details ?? {})) details[`${s.strategy}.${k}`] = (details[`${s.strategy}.${k}`] ?? 0) + v;
    const back = restoreTranscript(roundTrip(r.transcript), ctx.refs!);
    if (!back.ok) throw new Error(back.error.message);
    expect(JSON.stringify(back.value) === JSON.stringify(input), `restore of ${input.id}`).toBe(true);
  }
  return { saved, changed, details };
}

const REAL = 'every strategy, auto and restore on every real session of the shared corpus';
describe.skipIf(!hasCorpus(REAL))(REAL, () => {
  let sessions: Transcript[] = [];
  beforeAll(async () => {
    sessions = deepFreeze(await realSessions());
  });

  it('reads the real sessions', () => {
    expect(sessions.length).toBe(254);
  });

  for (const name of Object.keys(STRATEGIES).filter((n) => !STRATEGIES[n].async)) {
    it(`${name}: invariants, no token growth, byte-identical restore`, () => {
      const config = parseCompactConfig({ window: 16_000 });
      const { changed } = compactAll(sessions, [stepFor(name, config)], 16_000);
      if (['dedup-tools', 'checkpoint', 'truncate'].includes(name)) expect(changed).toBeGreaterThan(0);
    });
  }

  it('dedup-tools removes repeated lookups and contained reads there; the pairwise rule agrees with the sweep', () => {
    const config = parseCompactConfig({});
    const sweep = stepFor('dedup-tools', config);
    const pairwise: PipelineStep = { strategy: createDedupTools({ subsumes: { Read: rangeSubsumes(DEFAULT_TOOL_HINTS.Read.range!) } }), config: sweep.config };
    const a = compactAll(sessions, [sweep]);
    expect(a.details['dedup-tools.duplicatesRemoved']).toBeGreaterThan(0);
    expect(a.details['dedup-tools.subsumedRemoved']).toBeGreaterThan(0);
    for (const input of sessions) {
      const x = compactTranscript(input, [sweep], makeContext({ refs: false }));
      const y = compactTranscript(input, [pairwise], makeContext({ refs: false }));
      expect(JSON.stringify(y.transcript) === JSON.stringify(x.transcript), input.id).toBe(true);
    }
  });

  it('dedup-tools makes no false dedup: a brute-force check finds a later covering call for every removed one', () => {
    const hints = DEFAULT_TOOL_HINTS;
    const step = stepFor('dedup-tools', parseCompactConfig({ keepLast: 0 }));
    let removed = 0;
    for (const input of sessions) {
      const out = compactTranscript(input, [step], makeContext({ refs: false })).transcript;
      const kept = new Set(out.messages.flatMap((m) => (isAssistant(m) ? (m.tool_calls ?? []).map((c) => c.id) : [])));
      const sites = callSites(input.messages);
      for (const c of sites) {
        if (kept.has(c.call.id)) continue;
        removed++;
        const hint = hints[c.call.function.name];
        const a = JSON.parse(c.call.function.arguments) as Record<string, unknown>;
        const covering = sites.slice(c.seq + 1).find((d) => {
          if (d.call.function.name !== c.call.function.name || failedOrMissing(input.messages, d)) return false;
          const b = JSON.parse(d.call.function.arguments) as Record<string, unknown>;
          if (
            canonicalJson(a) !== canonicalJson(b) &&
            !(hint.range && rangeSubsumes(hint.range)({ name: '', arguments: '', args: a }, { name: '', arguments: '', args: b }))
          )
            return false;
          return !sites.slice(c.seq + 1, d.seq).some((x) => {
            if (!(hint.invalidatedBy ?? []).includes(x.call.function.name)) return false;
            const action = describeToolCall(x.call.function.name, x.call.function.arguments);
            if (action.kind === 'read' || action.kind === 'list' || action.kind === 'search') return false;
            if (!hint.range || (action.kind !== 'write' && action.kind !== 'edit')) return true;
            return (action.kind === 'write' || action.kind === 'edit') && normalizePath(action.path) === normalizePath(String(a[hint.range.path]));
          });
        });
        expect(covering, `${input.id}: ${c.call.function.name} ${c.call.function.arguments}`).toBeDefined();
      }
    }
    expect(removed).toBeGreaterThan(10);
  });

  it('auto at the default window and at a 16k window', () => {
    const wide = compactAll(sessions, buildSteps(parseCompactConfig({})));
    expect(wide.saved).toBeGreaterThan(0);
    const narrow = compactAll(sessions, buildSteps(parseCompactConfig({ window: 16_000 })), 16_000);
    expect(narrow.details['checkpoint.checkpoints']).toBeGreaterThan(0);
    expect(narrow.saved).toBeGreaterThan(wide.saved);
  });

  it('tcompact restore rebuilds a compacted archive file of all of them byte for byte, and compacting it again changes nothing', async () => {
    const dir = tempDir('restore');
    const steps = buildSteps(parseCompactConfig({ window: 16_000 }));
    const sink = new RefSink();
    const lines: string[] = [];
    const outputs: Transcript[] = [];
    for (const input of sessions) {
      const r = compactTranscript(input, steps, { ...makeContext(), refs: sink, window: 16_000 });
      lines.push(JSON.stringify(r.transcript));
      outputs.push(roundTrip(r.transcript));
    }
    writeFileSync(join(dir, 'out.jsonl'), `${lines.join('\n')}\n`);
    writeFileSync(join(dir, 'out.refs.jsonl'), sink.lines());
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let err = '';
    stderr.on('data', (d) => (err += d));
    const code = await restoreCommand.run([join(dir, 'out.jsonl'), '--out', join(dir, 'restored.jsonl')], { stdout, stderr });
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(readFileSync(join(dir, 'restored.jsonl'), 'utf8')).toBe(sessions.map((t) => `${JSON.stringify(t)}\n`).join(''));
    // Idempotence (RELIABILITY #10): the compacted archive compacted again is byte-identical.
    const again = outputs.map((t) => JSON.stringify(compactTranscript(t, steps, { ...makeContext(), refs: sink, window: 16_000 }).transcript));
    expect(again.join('\n')).toBe(lines.join('\n'));
  });
});
