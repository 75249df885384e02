import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/model/message.js';
import { type RangedRead, coveredBySweep, coveredPairwise, rangeContains, readRange } from '../../src/strategies/_line-ranges.js';
import { createDedupTools, dedupTools, rangeSubsumes } from '../../src/strategies/dedup-tools.js';
import { DEFAULT_TOOL_HINTS } from '../../src/strategies/tool-hints.js';
import { corpusPath, hasCorpus } from '../helpers/corpus.js';
import { assistant, call, expectIdempotent, expectInvariants, result, run, sys, transcript, user, LAST_TURN } from '../helpers/transcript-kit.js';

/** One assistant message with one call and its result. */
function step(id: string, name: string, args: Record<string, unknown>, output = `out ${id}`, isError = false): Message[] {
  return [assistant(null, { tool_calls: [call(id, name, args)] }), result(id, output, isError ? { is_error: true } : {})];
}

/** system, first request, the steps, then a kept last turn. */
function session(...steps: Message[][]): Message[] {
  return [sys('s'), user('start'), ...steps.flat(), user('last request'), assistant('done')];
}

describe('dedup-tools: identical arguments', () => {
  it('removes an earlier call with the same arguments in another key order, with its result and its emptied message', () => {
    const later = step('b', 'Grep', { path: 'src', pattern: 'x' });
    const input = transcript(session(step('a', 'Grep', { pattern: 'x', path: 'src' }), later));
    const r = run(dedupTools, input, LAST_TURN);
    expect(r.transcript.messages).toEqual([sys('s'), user('start'), ...later, user('last request'), assistant('done')]);
    expect(r.transcript.messages[2]).toBe(input.messages[4]);
    expect(r).toMatchObject({ messagesChanged: 0, messagesRemoved: 2, details: { duplicatesRemoved: 1, subsumedRemoved: 0 } });
    expectInvariants(input, r.transcript);
    expectIdempotent(dedupTools, r.transcript, LAST_TURN);
  });

  it('dedups repeated tau-bench lookups by default, unless a booking change came between them', () => {
    const lookup = (id: string) => step(id, 'get_reservation_details', { reservation_id: 'ABC123' });
    const plain = run(dedupTools, transcript(session(lookup('a'), lookup('b'))), LAST_TURN);
    expect(plain).toMatchObject({ messagesRemoved: 2, details: { duplicatesRemoved: 1 } });
    const changed = run(dedupTools, transcript(session(lookup('a'), step('c', 'cancel_reservation', { reservation_id: 'ABC123' }), lookup('b'))), LAST_TURN);
    expect(changed).toMatchObject({ messagesRemoved: 0, details: { duplicatesRemoved: 0 } });
    // tau-bench sets no is_error flag: a result whose first line reads as an error covers nothing.
    const failedLater = step('b', 'get_reservation_details', { reservation_id: 'ABC123' }, 'Error: service unavailable');
    expect(run(dedupTools, transcript(session(lookup('a'), failedLater)), LAST_TURN)).toMatchObject({ messagesRemoved: 0 });
  });

  it('keeps the text of an assistant message that loses its only call, without the tool_calls field', () => {
    const input = transcript(
      session([assistant('let me look', { tool_calls: [call('a', 'LS', { path: '.' })] }), result('a', 'x')], step('b', 'LS', { path: '.' })),
    );
    const r = run(dedupTools, input, LAST_TURN);
    expect(r.transcript.messages.slice(2, 5)).toEqual([assistant('let me look'), ...step('b', 'LS', { path: '.' })]);
    expect(r).toMatchObject({ messagesChanged: 1, messagesRemoved: 1 });
  });

  it('removes one call of a parallel pair and keeps the other', () => {
    const input = transcript(
      session(
        [assistant(null, { tool_calls: [call('a', 'Glob', { pattern: '*.ts' }), call('b', 'Bash', { command: 'ls' })] }), result('a', 'x'), result('b', 'y')],
        step('c', 'Glob', { pattern: '*.ts' }),
      ),
    );
    const r = run(dedupTools, input, LAST_TURN);
    expect(r.transcript.messages.slice(2, 4)).toEqual([assistant(null, { tool_calls: [call('b', 'Bash', { command: 'ls' })] }), result('b', 'y')]);
    expect(r.transcript.messages[3]).toBe(input.messages[4]);
  });

  it('never deduplicates tools without the dedup hint (side effects)', () => {
    const input = transcript(session(step('a', 'Bash', { command: 'make' }), step('b', 'Bash', { command: 'make' })));
    expect(run(dedupTools, input, LAST_TURN).transcript).toBe(input);
  });

  it('compares unparsable arguments as raw text', () => {
    const raw = (id: string): Message[] => [
      assistant(null, { tool_calls: [{ id, type: 'function', function: { name: 'Glob', arguments: 'not json' } }] }),
      result(id, 'r'),
    ];
    const input = transcript(session(raw('a'), raw('b')));
    expect(run(dedupTools, input, LAST_TURN).details).toEqual({ duplicatesRemoved: 1, subsumedRemoved: 0 });
  });

  it('does not let a failed call cover an earlier identical one', () => {
    const input = transcript(session(step('a', 'Grep', { pattern: 'x' }), step('b', 'Grep', { pattern: 'x' }, 'boom', true)));
    expect(run(dedupTools, input, LAST_TURN).transcript).toBe(input);
  });

  it('does not let a failed call that mask-observations already masked cover an earlier identical one', () => {
    // The masked result keeps its error line; reading it as a success would remove the earlier call on a second pass.
    const masked = '[Previous: used Glob] failed: error fix (ref: b3550f8ae78c18a3)';
    const input = transcript(session(step('a', 'Glob', { pattern: '**/*.md' }, 'fix'), step('b', 'Glob', { pattern: '**/*.md' }, masked)));
    expect(run(dedupTools, input, LAST_TURN).transcript).toBe(input);
    const plain = transcript(session(step('a', 'Glob', { pattern: '**/*.md' }, 'fix'), step('b', 'Glob', { pattern: '**/*.md' }, '[Previous: used Glob]')));
    expect(run(dedupTools, plain, LAST_TURN).details).toEqual({ duplicatesRemoved: 1, subsumedRemoved: 0 });
  });

  it('lets any file write between two Globs break coverage', () => {
    const input = transcript(
      session(step('a', 'Glob', { pattern: '*' }), step('w', 'Write', { file_path: 'n.ts', content: '' }), step('b', 'Glob', { pattern: '*' })),
    );
    expect(run(dedupTools, input, LAST_TURN).transcript).toBe(input);
  });
});

describe('dedup-tools: line-range subsumption', () => {
  const read = (id: string, args: Record<string, unknown>, output?: string, isError?: boolean) =>
    step(id, 'Read', { file_path: '/p/a.ts', ...args }, output, isError);

  it('removes a read whose range a later read contains', () => {
    const later = read('b', { offset: 5, limit: 50 });
    const input = transcript(session(read('a', { offset: 10, limit: 20 }), later));
    const r = run(dedupTools, input, LAST_TURN);
    expect(r.transcript.messages).toEqual(session(later));
    expect(r.details).toEqual({ duplicatesRemoved: 0, subsumedRemoved: 1 });
    expectInvariants(input, r.transcript);
    expectIdempotent(dedupTools, r.transcript, LAST_TURN);
  });

  it('keeps a read that a later read only overlaps', () => {
    const input = transcript(session(read('a', { offset: 10, limit: 20 }), read('b', { offset: 20, limit: 40 })));
    expect(run(dedupTools, input, LAST_TURN).transcript).toBe(input);
  });

  it('lets a whole-file read cover every range of that path', () => {
    const later = read('c', {});
    const input = transcript(session(read('a', { offset: 100, limit: 20 }), read('b', { offset: 1, limit: 5000 }), later));
    const r = run(dedupTools, input, LAST_TURN);
    expect(r.transcript.messages).toEqual(session(later));
    expect(r.details).toEqual({ duplicatesRemoved: 0, subsumedRemoved: 2 });
  });

  it('never lets a read cover an earlier read of a different path, but compares normalized paths', () => {
    const other = step('b', 'Read', { file_path: '/p/b.ts' });
    expect(run(dedupTools, transcript(session(read('a', { offset: 3, limit: 2 }), other)), LAST_TURN).transcript.messages).toHaveLength(8);
    const same = step('c', 'Read', { file_path: '/p/x/../a.ts' });
    expect(run(dedupTools, transcript(session(read('a', { offset: 3, limit: 2 }), same)), LAST_TURN).transcript.messages).toEqual(session(same));
  });

  it('keeps a read made before an edit of the same file, and removes one made before an edit of another file', () => {
    const editA = step('e', 'Edit', { file_path: '/p/a.ts', old_string: 'x', new_string: 'y' });
    const afterEdit = transcript(session(read('a', {}), editA, read('b', {})));
    expect(run(dedupTools, afterEdit, LAST_TURN).transcript).toBe(afterEdit);
    const editB = step('e', 'Edit', { file_path: '/p/b.ts', old_string: 'x', new_string: 'y' });
    const r = run(dedupTools, transcript(session(read('a', {}), editB, read('b', {}))), LAST_TURN);
    expect(r.transcript.messages).toEqual(session(editB, read('b', {})));
  });

  it('treats a writer whose target is unknown as an edit of every path', () => {
    const patch = step('p', 'apply_patch', { input: '*** Begin Patch' });
    const input = transcript(session(read('a', {}), patch, read('b', {})));
    expect(run(dedupTools, input, LAST_TURN).transcript).toBe(input);
  });

  it('never lets a failed read cover another', () => {
    const input = transcript(session(read('a', { offset: 10, limit: 5 }), read('b', {}, 'File does not exist.', true)));
    expect(run(dedupTools, input, LAST_TURN).transcript).toBe(input);
  });

  it('lets a failed read be covered by a later successful one', () => {
    const later = read('b', {});
    expect(run(dedupTools, transcript(session(read('a', {}, 'EACCES', true), later)), LAST_TURN).transcript.messages).toEqual(session(later));
  });

  it('reads read_file ranges from start_line/end_line', () => {
    const rf = (id: string, start: number, end: number) => step(id, 'read_file', { path: 'a.py', start_line: start, end_line: end });
    const later = rf('b', 1, 40);
    expect(run(dedupTools, transcript(session(rf('a', 10, 40), later)), LAST_TURN).transcript.messages).toEqual(session(later));
    const input = transcript(session(rf('a', 10, 41), rf('b', 1, 40)));
    expect(run(dedupTools, input, LAST_TURN).transcript).toBe(input);
  });

  it('does not compare reads whose other arguments differ', () => {
    const input = transcript(session(read('a', { offset: 2, limit: 2, pages: '1' }), read('b', {})));
    expect(run(dedupTools, input, LAST_TURN).transcript).toBe(input);
  });
});

describe('dedup-tools: boundaries', () => {
  it('never removes from the kept head or tail, but a call in the kept tail may cover one in the middle', () => {
    const head = step('h', 'Glob', { pattern: '*' });
    const middle = step('m', 'Glob', { pattern: '*' });
    const tail = step('t', 'Glob', { pattern: '*' });
    const input = transcript([sys('s'), user('start'), ...middle, user('last'), ...tail]);
    const r = run(dedupTools, input, LAST_TURN);
    expect(r.transcript.messages).toEqual([sys('s'), user('start'), user('last'), ...tail]);
    const headInput = transcript([sys('s'), user('start'), ...head, user('last'), ...tail]);
    expect(run(dedupTools, headInput, { ...LAST_TURN, keepFirst: 4 }).transcript).toBe(headInput);
    expect(run(dedupTools, input, { ...LAST_TURN, keepLast: 2 }).transcript).toBe(input);
  });

  it('rejects unknown options', () => {
    expect(dedupTools.config.safeParse({ keepRecent: 3 }).success).toBe(false);
  });
});

describe('dedup-tools: registered predicates', () => {
  it('removes calls a custom subsumes(earlier, later) predicate covers, pairwise', () => {
    const strategy = createDedupTools({ subsumes: { fetch_page: (a, b) => a.args?.url === b.args?.url && Number(b.args?.upto) >= Number(a.args?.upto) } });
    const later = step('b', 'fetch_page', { url: 'u', upto: 9 });
    const input = transcript(session(step('a', 'fetch_page', { url: 'u', upto: 3 }), step('x', 'fetch_page', { url: 'v', upto: 1 }), later));
    const r = run(strategy, input, LAST_TURN);
    expect(r.transcript.messages).toEqual(session(step('x', 'fetch_page', { url: 'v', upto: 1 }), later));
    expect(r.details).toEqual({ duplicatesRemoved: 0, subsumedRemoved: 1 });
    expect(run(dedupTools, input, LAST_TURN).transcript).toBe(input);
  });

  it('keeps no state between transcripts or strategy instances', () => {
    const a = createDedupTools({ subsumes: { custom: () => true } });
    const input = transcript(session(step('a', 'custom', { q: 1 }), step('b', 'custom', { q: 2 })));
    expect(run(a, input, LAST_TURN).details?.subsumedRemoved).toBe(1);
    expect(run(dedupTools, input, LAST_TURN).transcript).toBe(input);
  });
});

describe('line ranges', () => {
  const rule = DEFAULT_TOOL_HINTS.Read.range!;

  it('reads Claude Code offset/limit and open ends', () => {
    expect(readRange({ file_path: 'a', offset: 10, limit: 5 }, rule)).toEqual({ start: 10, end: 14 });
    expect(readRange({ file_path: 'a', offset: 0 }, rule)).toEqual({ start: 1, end: Infinity });
    expect(readRange({ file_path: 'a', offset: '7', limit: '2' }, rule)).toEqual({ start: 7, end: 8 });
    expect(readRange({ file_path: 'a', limit: 0 }, rule)).toBeUndefined();
    expect(readRange({ file_path: 'a', offset: -3 }, rule)).toBeUndefined();
    expect(readRange({ path: 'a', start_line: 5, end_line: -1 }, DEFAULT_TOOL_HINTS.read_file.range!)).toBeUndefined();
  });

  it('the sweep and the pairwise check find the same covered reads on random inputs', () => {
    const read = fc.record({
      start: fc.integer({ min: 1, max: 40 }),
      span: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.constant(Infinity)),
      canCover: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(read, { maxLength: 40 }), (raw) => {
        const reads: RangedRead[] = raw.map((r, seq) => ({ seq, start: r.start, end: r.start + r.span, canCover: r.canCover }));
        const naive = coveredPairwise(reads, (earlier, later) => rangeContains(later, earlier));
        expect([...coveredBySweep(reads)].sort((a, b) => a - b)).toEqual([...naive].sort((a, b) => a - b));
      }),
      { numRuns: 500 },
    );
  });

  it('the built-in rule as a predicate gives the same output as the sweep', () => {
    const pairwise = createDedupTools({ subsumes: { Read: rangeSubsumes(rule) } });
    const read = (id: string, offset: number, limit: number) => step(id, 'Read', { file_path: 'f', offset, limit });
    const input = transcript(session(read('a', 5, 5), read('b', 1, 3), read('c', 4, 20), read('d', 30, 2), read('e', 1, 10)));
    const sweep = run(dedupTools, input, LAST_TURN);
    expect(run(pairwise, input, LAST_TURN).transcript).toEqual(sweep.transcript);
    expect(sweep.transcript.messages).toEqual(session(read('c', 4, 20), read('d', 30, 2), read('e', 1, 10)));
  });
});

describe.skipIf(!hasCorpus('line ranges on the real spotter sessions'))('line ranges on the real spotter sessions', () => {
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((f) => {
      const p = join(dir, f);
      return statSync(p).isDirectory() ? files(p) : p.endsWith('.jsonl') ? [p] : [];
    });

  /** Every Read of every session straight from the raw Claude Code records, grouped by session and path. */
  function readGroups(): RangedRead[][] {
    const groups: RangedRead[][] = [];
    for (const file of files(corpusPath('spotter', 'files'))) {
      const failed = new Set<string>();
      const reads: { id: string; path: string; args: Record<string, unknown> }[] = [];
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        if (line === '') continue;
        const content = (JSON.parse(line) as { message?: { content?: unknown } }).message?.content;
        if (!Array.isArray(content)) continue;
        for (const b of content as Record<string, unknown>[]) {
          if (b.type === 'tool_result' && b.is_error === true) failed.add(b.tool_use_id as string);
          if (b.type === 'tool_use' && b.name === 'Read') {
            const args = b.input as Record<string, unknown>;
            reads.push({ id: b.id as string, path: String(args.file_path), args });
          }
        }
      }
      const byPath = new Map<string, RangedRead[]>();
      reads.forEach((r, seq) => {
        const range = readRange(r.args, DEFAULT_TOOL_HINTS.Read.range!);
        if (!range) return;
        const list = byPath.get(r.path) ?? [];
        list.push({ seq, ...range, canCover: !failed.has(r.id) });
        byPath.set(r.path, list);
      });
      groups.push(...byPath.values());
    }
    return groups;
  }

  it('finds the 112 overlapping Read-range pairs the dataset documents, and the sweep agrees with the pairwise check', () => {
    const groups = readGroups();
    let overlapping = 0;
    let covered = 0;
    for (const g of groups) {
      for (let i = 0; i < g.length; i++) for (let j = i + 1; j < g.length; j++) if (g[i].start <= g[j].end && g[j].start <= g[i].end) overlapping++;
      const sweep = [...coveredBySweep(g)].sort((a, b) => a - b);
      expect(sweep).toEqual([...coveredPairwise(g, (earlier, later) => rangeContains(later, earlier))].sort((a, b) => a - b));
      covered += sweep.length;
    }
    expect(overlapping).toBe(112);
    // Ignoring edits in between (the strategy does not): the upper bound of what subsumption can remove there.
    expect(covered).toBeGreaterThan(0);
  });
});
