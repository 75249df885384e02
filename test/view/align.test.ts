import { beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../../src/model/message.js';
import type { Transcript } from '../../src/model/transcript.js';
import { createCompactor } from '../../src/pipeline/job/create-compactor.js';
import { restoreWithFates } from '../../src/refs/restore.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { type AlignedRow, alignMessages } from '../../src/view/align.js';
import { transcriptView } from '../../src/view/transcript-view.js';
import { bundledTranscripts, syntheticTranscripts } from '../helpers/bundled-transcripts.js';

/**
 * The before/after alignment on real bundled transcripts compacted with `--strategy auto`, the original given back by
 * the side store as `tcompact view` gets it: a Claude Code sub-agent session (masked results; with a small window, a
 * checkpoint), a tau-bench session where dedup-tools removes a repeated lookup, and a SWE-agent trajectory auto
 * leaves as it was.
 */
let bundled: Transcript[];

beforeAll(async () => {
  bundled = await bundledTranscripts();
}, 120_000);

const byId = (id: string): Transcript => {
  const t = bundled.find((b) => b.id === id);
  if (!t) throw new Error(`no bundled transcript ${id}`);
  return t;
};

const SUBAGENT = '491e126e-1e71-469c-ade2-fcc8af567c74';
const DEDUPED = 'gpt-4o-airline#task-23-trial-3';
const UNCHANGED = 'swe-agent/pydicom__pydicom-1458';

/** Compacts like `run --strategy auto`, then restores the original and aligns it with the compacted transcript. */
function compactAndAlign(input: Transcript, window?: number) {
  const compactor = createCompactor({ strategies: ['auto'], ...(window !== undefined && { window }) });
  const { transcript: compacted, refs } = compactor.compact(input);
  const lookup = (ref: string) => refs?.get(ref);
  const restored = restoreWithFates(compacted, { get: lookup });
  if (!restored.ok) throw new Error(restored.error.message);
  const rows = alignMessages({
    original: restored.value.transcript.messages,
    compacted: compacted.messages,
    fates: restored.value.fates,
    steps: compactor.steps,
    lookup,
  });
  return { original: restored.value.transcript, compacted, fates: restored.value.fates, rows, lookup, steps: compactor.steps };
}

/** Every message of either side is in exactly one row, and the rows follow the original's order. */
function expectPartition(rows: readonly AlignedRow[], original: readonly Message[], compacted: readonly Message[]): void {
  expect(rows.flatMap((r) => r.before).sort((a, b) => a - b)).toEqual(original.map((_, i) => i));
  expect(rows.flatMap((r) => r.after).sort((a, b) => a - b)).toEqual(compacted.map((_, j) => j));
  const firsts = rows.filter((r) => r.before.length > 0).map((r) => r.before[0]);
  expect(firsts).toEqual([...firsts].sort((a, b) => a - b));
}

describe('alignMessages', () => {
  it('shows a masked tool result against its placeholder, named mask-observations, with the ref that holds the result', () => {
    const { original, compacted, rows, lookup } = compactAndAlign(byId(SUBAGENT));
    expectPartition(rows, original.messages, compacted.messages);
    const masked = rows.filter((r) => r.kind === 'replaced');
    expect(masked.length).toBeGreaterThan(0);
    for (const r of masked) {
      expect(r.strategy).toBe('mask-observations');
      const [i, j] = [r.before[0], r.after[0]];
      expect(compacted.messages[j]).toMatchObject({ role: 'tool', tool_call_id: (original.messages[i] as { tool_call_id: string }).tool_call_id });
      expect(r.stubs).toEqual([(compacted.messages[j] as { content: string }).content]);
      expect(r.stubs[0]).toMatch(/^\[Previous: used \w+\]/);
      expect(r.refs).toHaveLength(1);
      expect(r.stubs[0]).toContain(`(ref: ${r.refs[0]})`);
      expect(JSON.parse(lookup(r.refs[0]) as string)).toEqual((original.messages[i] as { content: unknown }).content);
    }
  });

  it('shows an assistant message strip-reasoning changed against the same message without its reasoning', () => {
    const { original, compacted, rows, lookup } = compactAndAlign(byId(SUBAGENT));
    const changed = rows.filter((r) => r.kind === 'changed');
    expect(changed.length).toBeGreaterThan(0);
    for (const r of changed) {
      expect(r.strategy).toBe('strip-reasoning');
      const { reasoning_content: reasoning, ...rest } = original.messages[r.before[0]] as Record<string, unknown>;
      expect(reasoning).toEqual(expect.any(String));
      expect(compacted.messages[r.after[0]]).toEqual(rest);
      expect(JSON.parse(lookup(r.refs[0]) as string)).toEqual(original.messages[r.before[0]]);
    }
  });

  it('shows an inline image strip-attachments took against the placeholder part in its place (a seeded synthetic archive: the real ones have none)', () => {
    const withImages = syntheticTranscripts()
      .map((t) => compactAndAlign(t))
      .filter((c) => c.rows.some((r) => r.strategy === 'strip-attachments'));
    expect(withImages.length).toBeGreaterThan(0);
    for (const { original, compacted, rows, lookup } of withImages) {
      expectPartition(rows, original.messages, compacted.messages);
      for (const r of rows.filter((row) => row.strategy === 'strip-attachments')) {
        expect(r.kind).toBe('replaced');
        expect(r.stubs.length).toBe(r.refs.length);
        for (const [k, stub] of r.stubs.entries()) {
          expect(stub).toMatch(/^\[attachment: [\w/.+-]+, \d+ bytes\] \(ref: [0-9a-f]{16}\)$/);
          expect(JSON.parse(lookup(r.refs[k]) as string)).toMatchObject({ type: expect.stringMatching(/^(image_url|file|input_audio)$/) });
        }
      }
    }
  });

  it('shows a message dedup-tools removed against nothing, with the ref the restore recipe stored it under', () => {
    const { original, compacted, rows, lookup } = compactAndAlign(byId(DEDUPED));
    expectPartition(rows, original.messages, compacted.messages);
    const removed = rows.filter((r) => r.kind === 'removed');
    // The earlier of two identical lookups: the assistant message that made the call, and its result.
    expect(removed.map((r) => original.messages[r.before[0]].role)).toEqual(['assistant', 'tool']);
    for (const r of removed) {
      expect(r).toMatchObject({ strategy: 'dedup-tools', after: [] });
      expect(JSON.parse(lookup(r.refs[0]) as string)).toEqual(original.messages[r.before[0]]);
    }
    expect(rows.filter((r) => r.kind !== 'kept' && r.kind !== 'removed')).toEqual([]);
  });

  it('shows the span a checkpoint replaced against the checkpoint message, named by its placeholder', () => {
    const { original, compacted, rows, fates } = compactAndAlign(byId(SUBAGENT), 16_000);
    expectPartition(rows, original.messages, compacted.messages);
    const merged = rows.filter((r) => r.kind === 'merged');
    expect(merged).toHaveLength(1);
    const [span] = merged;
    expect(span.strategy).toBe('checkpoint');
    expect(span.stubs[0]).toMatch(/^\[tcompact checkpoint of \d+ messages\] \(ref: [0-9a-f]{16}\)/);
    expect(span.stubs[0]).toContain(`(ref: ${span.refs[0]})`);
    // Every original the compacted transcript does not keep is in the span, and nothing else is.
    expect(span.before).toEqual(fates.flatMap((f, i) => ('stored' in f ? [i] : [])));
    // Nothing was removed before the checkpoint ran: the span is the messages its header counts.
    expect(span.before.length).toBe(Number(/of (\d+) messages/.exec(span.stubs[0])?.[1]));
    expect(span.before.length).toBeGreaterThan(2);
  });

  it('names both strategies when truncate then removed the checkpoint with what followed it', () => {
    const { original, compacted, rows, fates } = compactAndAlign(byId(SUBAGENT), 8000);
    expectPartition(rows, original.messages, compacted.messages);
    const merged = rows.filter((r) => r.kind === 'merged');
    expect(merged).toHaveLength(1);
    expect(merged[0].strategy).toBe('checkpoint + truncate');
    expect(merged[0].stubs[0]).toMatch(/^\[CONTEXT REDUCED - emergency truncation: \d+ messages removed\]/);
    expect(merged[0].before).toEqual(fates.flatMap((f, i) => ('stored' in f ? [i] : [])));
  });

  it('keeps every message of a transcript auto leaves unchanged, each against itself', () => {
    const input = byId(UNCHANGED);
    const { compacted, rows } = compactAndAlign(input);
    expect(compacted).toBe(input);
    expect(rows).toEqual(input.messages.map((_, i) => ({ kind: 'kept', before: [i], after: [i], refs: [], stubs: [] })));
  });
});

describe('transcriptView', () => {
  it("counts each row with the run's tokenizer, so the rows and the tool definitions add up to the tokens saved", () => {
    for (const [id, window] of [
      [SUBAGENT, undefined],
      [SUBAGENT, 16_000],
      [SUBAGENT, 8000],
      [DEDUPED, undefined],
    ] as const) {
      const { original, compacted, fates, steps, lookup } = compactAndAlign(byId(id), window);
      const tokenizer = getTokenizer('o200k_base');
      const view = transcriptView({ original, compacted, fates, tokenizer, steps, strategies: ['auto'], lookup });
      const saved = view.rows.reduce((n, r) => n + r.tokensBefore - r.tokensAfter, 0) + view.tools.before - view.tools.after;
      expect(saved, id).toBe(view.tokens.before - view.tokens.after);
      expect(view.tokens.before - view.tokens.after, id).toBeGreaterThan(0);
    }
  });

  it('counts the tool definitions prune-tools removed apart from the rows (a seeded synthetic archive: the real ones have none)', () => {
    const tokenizer = getTokenizer('o200k_base');
    const views = syntheticTranscripts().map((t) => {
      const { original, compacted, fates, steps, lookup } = compactAndAlign(t);
      return transcriptView({ original, compacted, fates, tokenizer, steps, strategies: ['auto'], lookup });
    });
    const pruned = views.filter((v) => v.tools.after < v.tools.before);
    expect(pruned.length).toBeGreaterThan(0);
    for (const view of pruned) {
      const rows = view.rows.reduce((n, r) => n + r.tokensBefore - r.tokensAfter, 0);
      expect(rows + view.tools.before - view.tools.after, view.id).toBe(view.tokens.before - view.tokens.after);
    }
  });
});
