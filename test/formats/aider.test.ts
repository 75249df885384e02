import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readAider } from '../../src/formats/aider.js';
import { detectFormat } from '../../src/formats/detect.js';
import { readInputs } from '../../src/formats/read-inputs.js';
import { walkDataFiles } from '../../src/formats/walk.js';
import { isAssistant } from '../../src/model/message.js';
import { NO_RESULT_TEXT } from '../../src/model/repair.js';
import type { Transcript } from '../../src/model/transcript.js';
import { findViolations } from '../../src/model/validity.js';
import { corpusPath, hasCorpus } from '../helpers/corpus.js';
import { runMain } from '../helpers/cli-in-process.js';
import { BUNDLED } from '../helpers/paths.js';
import { AIDER_HISTORY, READ, expectCompactRestores, accountedUnits, collect, errorsOf, lineCount, scratchFile, transcriptsOf } from './helpers.js';

const AIDER = join(BUNDLED, 'aider');
const BANNER_SESSION = join(AIDER, '2024-08-05-19-33-32.chat-history.md');
const RUN_SESSION = join(AIDER, '2024-08-09-15-33-48.chat-history.md');
const ADD_SESSION = join(AIDER, '2024-08-10-11-10-23.chat-history.md');
const CORPUS_FOLDER = corpusPath('aider');

const toolCalls = (t: Transcript) => t.messages.filter(isAssistant).flatMap((m) => m.tool_calls ?? []);

/**
 * Counts straight from the Markdown, without the adapter's block reader: sessions are the text between
 * `# aider chat started at` lines that holds a non-blank line; a user turn is a `#### ` line that comes after a blank
 * line and ends with aider's two-space line break (or comes after two blank lines); a command is such a turn that
 * starts with `/name`, other than the commands that send a request to the model, and it has a result when a `>` line
 * follows its turn at once; a reply's token report is a `> Tokens:` line after one blank line that follows text.
 */
function rawCounts(file: string) {
  const lines = readFileSync(file, 'utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  let sessions = 0;
  let inSession = false;
  let hasContent = false;
  let turns = 0;
  let commands = 0;
  let answered = 0;
  let usage = 0;
  lines.forEach((line, i) => {
    if (line.startsWith('# aider chat started at ')) {
      if (hasContent) sessions++;
      inSession = true;
      hasContent = false;
      return;
    }
    if (line.trim() !== '' && !(i === 0 && /^-\*-.*-\*-$/.test(line))) hasContent = true;
    const afterBlank = i > 0 && lines[i - 1].trim() === '';
    const afterTwoBlanks = afterBlank && i > 1 && lines[i - 2].trim() === '';
    if (line.startsWith('> Tokens: ') && afterBlank && i > 1 && lines[i - 2].trim() !== '' && !/^(>|####)/.test(lines[i - 2])) usage++;
    if (!/^####( |$)/.test(line) || !afterBlank || !(line.endsWith('  ') || afterTwoBlanks)) return;
    turns++;
    const command = /^#### \/([a-z][\w-]*)(.*)$/.exec(line.trimEnd());
    if (!command || ['ask', 'code', 'architect', 'context'].includes(command[1]) || (command[1] === 'help' && command[2].trim() !== '')) return;
    commands++;
    let next = i + 1;
    while (next < lines.length && /^####( |$)/.test(lines[next])) next++;
    if (next < lines.length && /^>( |$)/.test(lines[next])) answered++;
  });
  if (hasContent || !inSession) sessions++;
  return { sessions, turns, commands, answered, usage, users: turns - commands };
}

describe('aider chat history adapter', () => {
  it('reads a session: the banner, the request, the reply with its recorded usage, and the commands as calls', async () => {
    const items = await collect(readAider(BANNER_SESSION, READ));
    expect(errorsOf(items)).toEqual([]);
    expect(accountedUnits(items)).toBe(lineCount(BANNER_SESSION));
    const [t] = transcriptsOf(items);
    expect(t.transcript.id).toBe('2024-08-05-19-33-32.chat-history#1');
    expect(t.transcript.metadata).toMatchObject({
      startedAt: '2024-08-05 19:33:32',
      aiderVersion: 'v0.47.2-dev',
      models: ['claude-3-5-sonnet-20240620'],
      commands: 2,
    });
    const m = t.transcript.messages;
    expect(m.map((x) => x.role)).toEqual(['system', 'user', 'assistant', 'system', 'assistant', 'tool', 'assistant', 'tool']);
    expect(m[0].content).toMatch(/^\/Users\/gauthier\/Projects\/aider\/\.venv\/bin\/aider aider\/utils\.py\nAider v0\.47\.2-dev\n/);
    expect(m[1].content).toBe('Use the Spinner instead of the inlined custom spinner');
    expect(m[2]).toMatchObject({ usage: { input_tokens: 5244, output_tokens: 604 } });
    expect(m[2].content).toMatch(/^Certainly! I'll modify the `run_install` function[^]*>>>>>>> REPLACE\n```\n\nThis change replaces/);
    expect(m[3].content).toBe(
      'Tokens: 5,244 sent, 604 received. Cost: $0.02 request, $0.02 session.\nApplied edit to aider/utils.py\n' +
        'Commit fd43cd4 feat: Use the Spinner instead of the inlined custom spinner\nYou can use /undo to revert and discard commit fd43cd4.',
    );
    expect(toolCalls(t.transcript).map((c) => [c.id, c.function.name, c.function.arguments])).toEqual([
      ['aider_L112', 'diff', '{"args":""}'],
      ['aider_L114', 'ex', '{"args":""}'],
    ]);
    // Neither command printed anything into the history: the repair fills and counts both results.
    expect(t.repairs).toEqual({ missingResultFilled: 2 });
  });

  it("answers a command with the output printed after it, an older aider's multi-line output record included", async () => {
    const [t] = transcriptsOf(await collect(readAider(RUN_SESSION, READ)));
    const m = t.transcript.messages;
    expect(m.map((x) => x.role)).toEqual(['system', 'assistant', 'tool']);
    expect(toolCalls(t.transcript)[0].function).toEqual({ name: 'run', arguments: '{"args":"tput u6"}' });
    expect(m[2]).toEqual({
      role: 'tool',
      tool_call_id: 'aider_L10',
      name: 'run',
      content: '\u001b[%i%d;%dR\nAdd the output to the chat?\n(y/n/instructions) n\n\n\n^C again to exit\n\n\n^C KeyboardInterrupt',
    });
    expect(t.repairs).toEqual({});
  });

  it('keeps /add and /diff results, and the request between them, in order', async () => {
    const [t] = transcriptsOf(await collect(readAider(ADD_SESSION, READ)));
    const m = t.transcript.messages;
    expect(m.map((x) => x.role)).toEqual(['assistant', 'tool', 'assistant', 'tool', 'user', 'assistant', 'system', 'assistant', 'tool', 'assistant', 'tool']);
    expect(m[3]).toMatchObject({ name: 'add', content: 'Added /Users/gauthier/Projects/aider/aider/website/docs/git.md to the chat' });
    expect(m[5]).toMatchObject({ usage: { input_tokens: 15810, output_tokens: 420 } });
    expect(m[8]).toMatchObject({ name: 'diff', content: 'Diff since 58d401c...' });
    expect(findViolations(m)).toEqual([]);
  });

  it('detects a chat history by its session header, and walks .aider.chat.history.md but no other Markdown', async () => {
    expect(await detectFormat(ADD_SESSION, READ)).toEqual({ ok: true, format: 'aider', layout: 'jsonl' });
    const readme = scratchFile('README.md', '# A project\n\nNot a chat.\n');
    expect(await detectFormat(readme, READ)).toMatchObject({ ok: false, code: 'E_FORMAT' });
    const history = scratchFile('.aider.chat.history.md', readFileSync(RUN_SESSION));
    const found: string[] = [];
    for await (const f of walkDataFiles(join(history, '..'))) found.push(f);
    expect(found.filter((f) => f.endsWith('.md'))).toEqual([history]);
  });

  it('reports a line that is not UTF-8 as E_UTF8 and reads the rest of its session', async () => {
    const text = readFileSync(ADD_SESSION);
    const bad = Buffer.concat([Buffer.from('#### caf\xe9 is not UTF-8  \n', 'latin1'), Buffer.from('\n')]);
    const cut = text.indexOf('#### update the docs');
    const file = scratchFile('bad.chat-history.md', Buffer.concat([text.subarray(0, cut), bad, text.subarray(cut)]));
    const items = await collect(readAider(file, READ));
    expect(errorsOf(items).map((e) => [e.record.line, e.record.code])).toEqual([[9, 'E_UTF8']]);
    expect(accountedUnits(items)).toBe(lineCount(file));
    const [t] = transcriptsOf(items);
    expect(t.transcript.messages.filter((x) => x.role === 'user').map((x) => x.content)).toEqual(['update the docs']);
  });

  it('gives each bundled session back byte for byte after compacting and restoring', async () => {
    const sessions = transcriptsOf(await collect(readInputs([AIDER], READ))).map((i) => i.transcript);
    expect(sessions).toHaveLength(3);
    // A window small enough that the sessions' replies and outputs get compacted.
    expect(expectCompactRestores(sessions, 500)).toBeGreaterThan(0);
  });

  it('stats shows the tokens of each category', async () => {
    const r = await runMain(['stats', AIDER, '--json']);
    expect(r.code).toBe(0);
    const byCategory = (JSON.parse(r.stdout) as { total: { byCategory: Record<string, number> } }).total.byCategory;
    for (const category of ['system', 'user', 'assistant', 'toolCalls', 'toolResults']) expect(byCategory[category], category).toBeGreaterThan(0);
  });
});

const REAL = "aider's chat history in the shared corpus";
describe.skipIf(!hasCorpus(REAL))(REAL, () => {
  it('reads every session of the folder with no error, its counts matching a count of the raw Markdown', async () => {
    const items = await collect(readInputs([CORPUS_FOLDER], READ));
    const errorsByCode: Record<string, number> = {};
    for (const e of errorsOf(items)) errorsByCode[e.record.code] = (errorsByCode[e.record.code] ?? 0) + 1;
    expect(errorsByCode).toEqual({});
    // The walk takes the chat history only: the website's example pages are edited documentation, not histories.
    expect(new Set(items.map((i) => (i.kind === 'error' ? i.record.file : i.file)))).toEqual(new Set([AIDER_HISTORY]));
    expect(accountedUnits(items)).toBe(lineCount(AIDER_HISTORY));
    const sessions = transcriptsOf(items).map((i) => i.transcript);
    const raw = rawCounts(AIDER_HISTORY);
    expect(sessions.length).toBe(raw.sessions);
    expect(sessions.reduce((n, t) => n + toolCalls(t).length, 0)).toBe(raw.commands);
    expect(sessions.reduce((n, t) => n + t.messages.filter((m) => m.role === 'user').length, 0)).toBe(raw.users);
    const recorded = (m: Transcript['messages'][number]) => m.role === 'tool' && m.content !== NO_RESULT_TEXT;
    expect(sessions.reduce((n, t) => n + t.messages.filter(recorded).length, 0)).toBe(raw.answered);
    expect(sessions.reduce((n, t) => n + t.messages.filter((m) => 'usage' in m).length, 0)).toBe(raw.usage);
    for (const t of sessions) expect(findViolations(t.messages), t.id).toEqual([]);
  });

  it('gives every session back byte for byte after compacting and restoring', async () => {
    const sessions = transcriptsOf(await collect(readInputs([CORPUS_FOLDER], READ))).map((i) => i.transcript);
    expect(expectCompactRestores(sessions)).toBeGreaterThan(0);
  });
});
