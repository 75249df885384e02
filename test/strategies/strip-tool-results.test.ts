import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findViolations } from '../../src/model/validity.js';
import { refOf } from '../../src/refs/ref-store.js';
import { firstLine, stripToolResults } from '../../src/strategies/strip-tool-results.js';
import { assistant, call, expectIdempotent, makeContext, result, run, transcript, user, LAST_TURN } from '../helpers/transcript-kit.js';

const ref = (content: unknown) => ` (ref: ${refOf(JSON.stringify(content))})`;
const LOG = `\n\n   npm ERR! missing script: tset   \n${'npm ERR! details follow\n'.repeat(20)}`;
const FILE = `     1→import { x } from './x.js';\n${'     2→const y = x + 1;\n'.repeat(30)}`;

function session() {
  return transcript([
    user('run the tests'),
    assistant('Running.', { tool_calls: [call('b1', 'Bash', { command: 'npm run tset' }), call('r1', 'Read', { file_path: 'x.ts' })] }),
    result('b1', LOG, { is_error: true }),
    result('r1', FILE),
    assistant(null, { tool_calls: [call('t1', 'TodoWrite', { todos: [] })] }),
    result('t1', 'Todos updated: '.repeat(30)),
    assistant(null, { tool_calls: [call('w1', 'WebFetch', { url: 'u' })] }),
    result('w1', 'page '.repeat(200)),
    user('thanks'),
    assistant(null, { tool_calls: [call('b2', 'Bash', { command: 'npm test' })] }),
    result('b2', LOG),
  ]);
}

describe('strip-tool-results', () => {
  it('accepts {} and rejects unknown options', () => {
    expect(stripToolResults.config.parse({})).toMatchObject({ keepLast: 0, keepMessages: 10, keepResults: 10, lineChars: 200 });
    expect(stripToolResults.config.safeParse({ response: 'keep' }).success).toBe(false);
  });

  it('replaces results with status and first line, keeps `keep` tools and the last turn', () => {
    const before = session();
    const ctx = makeContext();
    const r = run(stripToolResults, before, { ...LAST_TURN }, ctx);
    const expected = session();
    expected.messages[2] = result('b1', `[compacted] Bash: error: npm ERR! missing script: tset${ref(LOG)}`, { is_error: true });
    expected.messages[3] = result('r1', `[compacted] Read: success: 1→import { x } from './x.js';${ref(FILE)}`);
    expected.messages[7] = result('w1', `[compacted] WebFetch: success: ${'page '.repeat(200).trim().slice(0, 200)}…${ref('page '.repeat(200))}`);
    expect(r.transcript).toEqual(expected);
    expect(r).toMatchObject({ messagesChanged: 3, messagesRemoved: 0, details: { resultsStripped: 3, callsRemoved: 0 } });
    expect(ctx.refs!.get(refOf(JSON.stringify(LOG)))).toBe(JSON.stringify(LOG));
    expect(r.transcript.messages[5]).toBe(before.messages[5]);
    expect(findViolations(r.transcript.messages)).toEqual([]);
    expectIdempotent(stripToolResults, r.transcript, LAST_TURN);
  });

  it('removes call and result for `remove` tools, and an assistant message left empty', () => {
    const hints = { toolHints: { WebFetch: { response: 'remove' }, Read: { response: 'remove' }, Bash: { response: 'keep' } } };
    const before = session();
    const r = run(stripToolResults, before, { ...LAST_TURN, ...hints });
    expect(r.transcript).toEqual(
      transcript([
        user('run the tests'),
        assistant('Running.', { tool_calls: [call('b1', 'Bash', { command: 'npm run tset' })] }),
        result('b1', LOG, { is_error: true }),
        assistant(null, { tool_calls: [call('t1', 'TodoWrite', { todos: [] })] }),
        result('t1', 'Todos updated: '.repeat(30)),
        user('thanks'),
        assistant(null, { tool_calls: [call('b2', 'Bash', { command: 'npm test' })] }),
        result('b2', LOG),
      ]),
    );
    expect(r).toMatchObject({ messagesChanged: 1, messagesRemoved: 3, details: { resultsStripped: 0, callsRemoved: 2 } });
    expect(findViolations(r.transcript.messages)).toEqual([]);
    expectIdempotent(stripToolResults, r.transcript, { ...LAST_TURN, ...hints });
  });

  it('removes every call of a repeated id (tau-bench reuses ids) and counts calls, not ids', () => {
    const lookup = () => [assistant(null, { tool_calls: [call('x', 'get_user_details', { user_id: 'u1' })] }), result('x', '{"name": "Mia"}')];
    const t = transcript([user('hi'), ...lookup(), assistant('Found you.'), ...lookup(), user('bye')]);
    const r = run(stripToolResults, t, { ...LAST_TURN, toolHints: { get_user_details: { response: 'remove' } } });
    expect(r.transcript).toEqual(transcript([user('hi'), assistant('Found you.'), user('bye')]));
    expect(r).toMatchObject({ messagesChanged: 0, messagesRemoved: 4, details: { resultsStripped: 0, callsRemoved: 2 } });
  });

  it('leaves a result whose summary would not be shorter', () => {
    const t = transcript([user('go'), assistant(null, { tool_calls: [call('a', 'Bash')] }), result('a', 'ok'), user('next')]);
    const r = run(stripToolResults, t, LAST_TURN);
    expect(r.transcript).toBe(t);
    expect(r.details).toEqual({ resultsStripped: 0, callsRemoved: 0 });
  });

  it('does not strip a result mask-observations already replaced', () => {
    const masked = `[Previous: used Read] (ref: 0123456789abcdef) ${'padding '.repeat(40)}`;
    const t = transcript([user('go'), assistant(null, { tool_calls: [call('a', 'Read')] }), result('a', masked), user('next')]);
    expect(run(stripToolResults, t, LAST_TURN).transcript).toBe(t);
  });

  it('omits the ref without a side store', () => {
    const r = run(stripToolResults, session(), { ...LAST_TURN }, makeContext({ refs: false }));
    expect(r.transcript.messages[3]).toEqual(result('r1', "[compacted] Read: success: 1→import { x } from './x.js';"));
  });

  it('takes the first non-blank line, trimmed, cut at code points', () => {
    expect(firstLine('\n  \n  hello  \nworld', 200)).toBe('hello');
    expect(firstLine('', 200)).toBe('');
    expect(firstLine('😀😀😀', 2)).toBe('😀😀…');
  });
});

describe('firstLine cuts by code points', () => {
  /** The definition: the first non-blank line, trimmed, as an array of code points cut to max. */
  const reference = (text: string, max: number) => {
    const line =
      text
        .split('\n')
        .map((l) => l.trim())
        .find((l) => l !== '') ?? '';
    const points = Array.from(line);
    return points.length > max ? `${points.slice(0, max).join('')}…` : line;
  };

  it('equals the definition on random text: astral characters, lone surrogates, blank lines and runs, any length', () => {
    const unit = fc.oneof(
      fc.constantFrom('\n', ' ', '\t', '\u00a0', 'a', 'é', '中', '😀', '\ud83d', '\ude00', '\u2028'),
      // Longer than the window firstLine reads: a blank run past the cut, and a long line to cut.
      fc.constantFrom(' '.repeat(40), '\t \u3000'.repeat(10), 'x'.repeat(30), '😀'.repeat(15)),
      fc.string({ unit: 'grapheme', maxLength: 3 }),
    );
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 60 }), fc.integer({ min: 1, max: 12 }), (parts, max) => {
        const text = parts.join('');
        expect(firstLine(text, max)).toBe(reference(text, max));
      }),
      { numRuns: 2000 },
    );
  });
});
