import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatBody, FakeServer } from '../llm/fake-openai-server.js';
import { startFakeOpenAI } from '../llm/fake-openai-server.js';
import { runMain } from '../helpers/cli-in-process.js';
import { assistant, call, result, transcript, user } from '../helpers/transcript-kit.js';
import { tempDir } from '../pipeline/helpers.js';
import { SUMMARY_SECTIONS } from '../../src/strategies/llm/prompts.js';

/**
 * `eval --strategy summarize --model M` against the loopback OpenAI server answering with a fixed summary
 * per model, on a hand-written transcript whose probes are known: the expected recall of each kind is computed by hand
 * below, not by the code under test.
 */

/** Long enough tool output that a summary is much smaller than the span it replaces (summarize refuses one that is not). */
const CODE = Array.from({ length: 80 }, (_, i) => `${i + 4}→  const token${i} = scanner.next(); // position ${i * 7}`).join('\n');
const PASSED = Array.from({ length: 80 }, (_, i) => `  ✓ parses case number ${i} of the grammar fixtures`).join('\n');

/**
 * The last turn searches the repository in ten parallel calls (a search is no probe of any kind), so the default tail,
 * which holds the last 10 tool results with their call, is that turn after its request.
 */
const PLACES = ['CHANGELOG.md', 'README.md', 'docs', 'src', 'test', 'examples', 'bench', 'scripts', 'package.json', 'CONTRIBUTING.md'];
const SEARCHES = PLACES.map((place, i) => call(`s${i}`, 'Grep', { pattern: 'EOF token', path: `/repo/${place}` }));
const FOUND = PLACES.map((place, i) => result(`s${i}`, i < 4 ? `/repo/${place}: ${i + 1} lines mention the EOF token` : 'no lines mention it'));

// Turn 1 (the first request, which summarize keeps as the head), turn 2 (summarized away), turn 3 (the last, kept).
const SESSION = transcript(
  [
    user('Fix the failing parser tests in the repository'),
    assistant(null, { tool_calls: [call('c1', 'Read', { file_path: '/repo/src/parser.ts' })] }),
    result('c1', `1→export function parse(input) {\n2→  return tokenize(input);\n3→}\n${CODE}`),
    assistant(null, { tool_calls: [call('c2', 'Bash', { command: 'npm test' })] }),
    result('c2', 'Error: expected 3 tokens, got 4\n    at parser.test.ts:12', { is_error: true }),
    assistant('The lexer emits an extra token at the end of the input.'),
    user('Go ahead and patch the lexer, then check lint'),
    assistant(null, { tool_calls: [call('c3', 'Edit', { file_path: '/repo/src/lexer.ts', old_string: 'tokens.push(EOF);', new_string: '' })] }),
    result('c3', 'Edited.'),
    assistant(null, { tool_calls: [call('c4', 'Bash', { command: 'npm run lint' })] }),
    result('c4', 'Error: 2 lint problems\n  src/lexer.ts 4:1 no-unused-vars', { is_error: true }),
    assistant(null, { tool_calls: [call('c5', 'Bash', { command: 'npm test' })] }),
    result('c5', `80 passed\n${PASSED}`),
    assistant('The tests pass now.'),
    user('Now write a short changelog entry for this fix'),
    assistant(null, { tool_calls: SEARCHES }),
    ...FOUND,
    assistant('Here is the entry: "The lexer no longer emits an extra token at the end of the input."'),
  ],
  { id: 'hand-made' },
);

/*
 * Its probes, by hand:
 * - artifact: /repo/src/parser.ts (read), /repo/src/lexer.ts (edited)                                       -> 2
 * - command: `npm test` (failed once), `npm run lint` (failed)                                              -> 2, both failed
 * - error: "Error: expected 3 tokens, got 4" (resolved: `npm test` passed later), "Error: 2 lint problems"  -> 2, 1 unresolved
 * - intent: the three requests by key phrases, plus the last one verbatim                                   -> 4
 * summarize keeps message 0 (the head), message 14 (the last request) and 15-26 (the tail: the searches and their
 * results, and the answer), and replaces 1-13 with its summary, whose
 * continuation note repeats the last request. So whatever the model says, the first and last requests (3 intent
 * probes) stay.
 *
 * The checkpoint's skeleton of messages 1-13 (summarize's default) lists both files, both commands and the one
 * unresolved error, and not the requests or the error resolved later:
 *   - /repo/src/parser.ts (read)                - ok after 1 failed run `npm test`
 *   - /repo/src/lexer.ts (modified)             - FAILED `npm run lint`: Error: 2 lint problems
 *   - unresolved: Error: 2 lint problems
 * Each listed fact the model's summary leaves out is added below it. So both files, both commands (both failed once)
 * and the lint error are kept whatever the model says; the second request and the resolved error "expected 3 tokens,
 * got 4" are kept only if the summary says them.
 */
const SECTIONS = SUMMARY_SECTIONS.map((s) => s.title);
function summaryWith(facts: Partial<Record<(typeof SECTIONS)[number], string>>): string {
  return SECTIONS.map((s) => `## ${s}\n${facts[s] ?? 'None.'}`).join('\n\n');
}
/** Model A names the file it read, the command it ran and the first error: the skeleton adds the rest of its lists. */
const SUMMARY_A = summaryWith({
  'Files and code changes': '- Read /repo/src/parser.ts',
  'Errors and fixes': '- `npm test` failed with: Error: expected 3 tokens, got 4. Fixed later.',
});
/** Model B names the edited file, the lint command and its error, and the second request: the skeleton adds the read and `npm test`. */
const SUMMARY_B = summaryWith({
  'Files and code changes': '- Edited /repo/src/lexer.ts',
  'Errors and fixes': '- `npm run lint` failed with: Error: 2 lint problems',
  'All user messages': '- Go ahead and patch the lexer, then check lint',
});

interface Tally {
  probes: number;
  retained: number;
}
interface Score {
  byKind: Record<string, Tally>;
  overall: Tally;
  failedCommands: Tally;
  unresolvedErrors: Tally;
  lastRequest: Tally;
}
const t = (probes: number, retained: number): Tally => ({ probes, retained });

/** A: the files, commands and lint error from its text or the skeleton, the first error from its text; not the second request. */
const EXPECTED_A: Score = {
  byKind: { artifact: t(2, 2), command: t(2, 2), error: t(2, 2), intent: t(4, 3), task: t(0, 0) },
  overall: t(10, 9),
  failedCommands: t(2, 2),
  unresolvedErrors: t(1, 1),
  lastRequest: t(1, 1),
};
/** B: the files, commands and lint error, and the second request; the resolved error is in neither its text nor the skeleton. */
const EXPECTED_B: Score = {
  byKind: { artifact: t(2, 2), command: t(2, 2), error: t(2, 1), intent: t(4, 4), task: t(0, 0) },
  overall: t(10, 9),
  failedCommands: t(2, 2),
  unresolvedErrors: t(1, 1),
  lastRequest: t(1, 1),
};
/** What each model's summary loses, as lost.jsonl names them (kind and the probe's key). */
const LOST_A = ['intent Go ahead and patch the lexer, then check lint'];
const LOST_B = ['error Error: expected 3 tokens, got 4'];

let server: FakeServer;
const env = { OPENAI_API_KEY: 'test-key' };

beforeAll(async () => {
  server = await startFakeOpenAI({
    script: ({ body }: { body: ChatBody }) => ({ kind: 'text', text: body.model === 'model-a' ? SUMMARY_A : SUMMARY_B }),
  });
});
afterAll(async () => {
  await server.close();
});

interface LostLine {
  transcript: string;
  strategy: string;
  compaction?: number;
  probe: { kind: string; path?: string; command?: string; line?: string; text?: string };
}
const probeKey = (p: LostLine['probe']) => `${p.kind} ${p.path ?? p.command ?? p.line ?? p.text}`;

function readLost(dir: string): LostLine[] {
  return readFileSync(join(dir, 'lost.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as LostLine);
}

describe('eval of LLM summaries against a deterministic fake summarizer', () => {
  it('gives the hand-computed recall of every kind for each model, and lost.jsonl names what each row lost', async () => {
    const dir = tempDir('eval-llm-hand');
    const input = join(dir, 'session.jsonl');
    writeFileSync(input, `${JSON.stringify(SESSION)}\n`);
    const sent = server.requests.length;
    const r = await runMain(
      ['eval', input, '--strategy', 'summarize', '--strategy', 'checkpoint', '--model', 'model-a', '--model', 'model-b', '--llm', server.baseURL, '--out', dir],
      { env },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // One summary per model: the span fits one request.
    expect(server.requests.slice(sent).map((q) => q.body.model)).toEqual(['model-a', 'model-b']);
    const report = JSON.parse(readFileSync(join(dir, 'eval.json'), 'utf8')) as { rows: { name: string; score: Score }[]; probes: Record<string, number> };
    expect(report.probes).toEqual({ artifact: 2, command: 2, error: 2, intent: 4, task: 0 });
    expect(report.rows.map((row) => row.name)).toEqual(['original', 'summarize @ model-a', 'summarize @ model-b', 'checkpoint']);
    expect(report.rows[0].score.overall).toEqual(t(10, 10));
    expect(report.rows[1].score).toEqual(EXPECTED_A);
    expect(report.rows[2].score).toEqual(EXPECTED_B);

    const lost = readLost(dir);
    expect(lost.every((l) => l.transcript === 'hand-made' && l.compaction === undefined)).toBe(true);
    const lostBy = (row: string) => lost.filter((l) => l.strategy === row).map((l) => probeKey(l.probe));
    expect(lostBy('original')).toEqual([]);
    expect(lostBy('summarize @ model-a')).toEqual(LOST_A);
    expect(lostBy('summarize @ model-b')).toEqual(LOST_B);
    // Each row's lines are exactly its lost probes: as many as the probes it did not retain.
    for (const row of report.rows) expect(lostBy(row.name)).toHaveLength(row.score.overall.probes - row.score.overall.retained);
  });

  it('audits a run with summarize by eval --compacted: the same figures as eval --strategy summarize', async () => {
    const dir = tempDir('eval-llm-compacted');
    const input = join(dir, 'session.jsonl');
    writeFileSync(input, `${JSON.stringify(SESSION)}\n`);
    const llm = ['--model', 'model-a', '--llm', server.baseURL];
    expect((await runMain(['run', input, '--strategy', 'summarize', ...llm, '--out', join(dir, 'run')], { env })).code).toBe(0);
    const audit = await runMain(['eval', '--compacted', join(dir, 'run'), '--out', join(dir, 'audit')]);
    expect(audit.code).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'audit', 'eval.json'), 'utf8')) as { rows: { name: string; score: Score }[] };
    expect(report.rows.map((row) => row.name)).toEqual(['original', 'compacted: summarize @ model-a']);
    expect(report.rows[1].score).toEqual(EXPECTED_A);
    expect(readLost(join(dir, 'audit')).map((l) => probeKey(l.probe))).toEqual(LOST_A);
  });
});
