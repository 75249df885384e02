import { readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/formats/detect.js';
import { readInputs } from '../../src/formats/read-inputs.js';
import { walkDataFiles } from '../../src/formats/walk.js';
import { CORPUS, hasCorpus } from '../helpers/corpus.js';
import { BUNDLED } from '../helpers/paths.js';
import {
  AIDER_HISTORY,
  BUNDLED_CLAUDE_CODE,
  CODEX_FIXTURES,
  OPENHANDS,
  READ,
  SESSION_SHARE,
  SPOTTER,
  SWE_AGENT,
  TAU_BENCH,
  accountedUnits,
  collect,
  errorsOf,
  filesUnder,
  lineCount,
  scratchFile,
  transcriptsOf,
} from './helpers.js';

async function formatOf(file: string): Promise<string | undefined> {
  const d = await detectFormat(file, READ);
  return d.ok ? d.format : `${d.code}: ${d.message}`;
}

describe('detectFormat', () => {
  it('recognises every bundled file, every file of the shared corpus when it is set, and the Codex fixtures', async () => {
    const expected: [string[], string][] = [
      [filesUnder(BUNDLED_CLAUDE_CODE, /\.jsonl$/), 'claude-code'],
      [[TAU_BENCH], 'messages'],
      [filesUnder(join(BUNDLED, 'swe-agent'), /\.traj$/), 'swe-agent'],
      [filesUnder(OPENHANDS, /\.json$/), 'openhands'],
      [filesUnder(CODEX_FIXTURES, /\.jsonl$/), 'codex'],
    ];
    if (hasCorpus('detectFormat on the shared corpus')) {
      expected.push(
        [filesUnder(SPOTTER, /\.jsonl$/), 'claude-code'],
        [filesUnder(SESSION_SHARE, /\.jsonl$/), 'claude-code'],
        [filesUnder(SWE_AGENT, /\.traj$/), 'swe-agent'],
      );
    }
    for (const [files, format] of expected) {
      expect(files.length).toBeGreaterThan(0);
      for (const f of files) expect(await formatOf(f), f).toBe(format);
    }
  });

  it('tells the canonical archive, Anthropic conversations and messages lists apart by their first record', async () => {
    const cases: [string, string, string][] = [
      ['archive.jsonl', JSON.stringify({ id: 'a', messages: [{ role: 'user', content: 'hi' }] }), 'openai'],
      [
        'anthropic.jsonl',
        JSON.stringify({ id: 'a', messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'x', input: {} }] }] }),
        'anthropic',
      ],
      ['anthropic-system.json', JSON.stringify({ system: 'be brief', messages: [{ role: 'user', content: 'hi' }] }, null, 2), 'anthropic'],
      ['runs.jsonl', JSON.stringify({ traj: [{ role: 'user', content: 'hi' }] }), 'messages'],
      ['chat.json', JSON.stringify([{ role: 'user', content: 'hi' }], null, 2), 'messages'],
      ['no-extension', JSON.stringify({ type: 'session_meta', payload: { id: 'x' } }), 'codex'],
      ['renamed.jsonl', JSON.stringify({ type: 'custom-title', customTitle: 'Fix the login', sessionId: 's' }), 'claude-code'],
    ];
    for (const [name, content, format] of cases) expect(await formatOf(scratchFile(name, `${content}\n`)), name).toBe(format);
  });

  it('names what it saw, the formats tried and the closest one when the format is unknown', async () => {
    const json = await formatOf(scratchFile('unknown.json', '{"rows": [1, 2], "total": 2}'));
    expect(json).toMatch(
      /^E_FORMAT: unknown format: a JSON object whose first record is an object with keys \[rows, total\]; tried gemini, .*swe-agent, .*messages; none came close/,
    );
    expect(await formatOf(scratchFile('unknown.jsonl', '{"event": "click", "type": "ui"}\n'))).toMatch(
      /^E_FORMAT: unknown format: the first record is an object with keys \[event, type\] and type "ui"; tried codex, claude-code, .*openai, messages, swe-agent; none came close/,
    );
    // A Claude Code record type and ids, but a message with neither Claude Code's content nor Qwen's Gemini parts.
    const neither = { type: 'assistant', uuid: 'u', parentUuid: null, sessionId: 's', message: { role: 'model', text: 'hi' } };
    expect(await formatOf(scratchFile('neither.jsonl', `${JSON.stringify(neither)}\n`))).toMatch(
      /; closest: claude-code \(the first record is a Claude Code record type but has no message\.content on user and assistant records \(not Gemini parts\)\)$/,
    );
  });

  it('lets a later record rule out a format its first record fitted: a system record fits Claude Code and Qwen Code', async () => {
    const system = { type: 'system', subtype: 'x', uuid: 'a', parentUuid: null, sessionId: 's' };
    const qwen = { type: 'user', uuid: 'b', parentUuid: 'a', sessionId: 's', message: { role: 'user', parts: [{ text: 'hi' }] } };
    const claude = { type: 'user', uuid: 'b', parentUuid: 'a', sessionId: 's', message: { role: 'user', content: 'hi' } };
    expect(await formatOf(scratchFile('qwen.jsonl', `${JSON.stringify(system)}\n${JSON.stringify(qwen)}\n`))).toBe('qwen');
    expect(await formatOf(scratchFile('claude.jsonl', `${JSON.stringify(system)}\n${JSON.stringify(claude)}\n`))).toBe('claude-code');
  });
});

describe('readInputs', () => {
  it('makes an unknown file one E_FORMAT error that covers all its lines, and goes on to the next input', async () => {
    const unknown = scratchFile('metrics.jsonl', '{"a": 1}\n{"a": 2}\n{"a": 3}\n');
    const items = await collect(readInputs([unknown, join(BUNDLED_CLAUDE_CODE, 'short.jsonl')], READ));
    const [error] = errorsOf(items);
    expect(error.record).toMatchObject({ file: unknown, line: 1, code: 'E_FORMAT' });
    expect(error.record.message).toContain(unknown);
    expect(error.lines).toBe(3);
    expect(transcriptsOf(items)).toHaveLength(1);
  });

  it('reports a .json file that does not parse from its start as E_JSON, not as an unknown format', async () => {
    const items = await collect(readInputs([scratchFile('garbled.json', '{"messages": [}')], READ));
    expect(items.map((i) => (i.kind === 'error' ? [i.record.code, i.lines] : i.kind))).toEqual([['E_JSON', undefined]]);
  });

  it('reports a path that does not exist as E_IO covering no lines', async () => {
    const items = await collect(readInputs(['/nonexistent/tcompact-input.jsonl'], READ));
    expect(items.map((i) => (i.kind === 'error' ? [i.record.code, i.lines] : i.kind))).toEqual([['E_IO', 0]]);
  });

  it('reads a JSONL file whose first lines are all broken line by line, so each gets its own error', async () => {
    const items = await collect(readInputs([scratchFile('broken.jsonl', '{"id":\n{oops\n')], READ));
    expect(items.map((i) => (i.kind === 'error' ? [i.record.line, i.record.code] : i.kind))).toEqual([
      [1, 'E_JSON'],
      [2, 'E_JSON'],
    ]);
  });

  it('obeys --from: a Claude Code file forced through the canonical reader fails line by line, never silently', async () => {
    const file = join(BUNDLED_CLAUDE_CODE, 'short.jsonl');
    const items = await collect(readInputs([file], { ...READ, from: 'openai' }));
    expect(errorsOf(items)).toHaveLength(lineCount(file));
    expect(new Set(errorsOf(items).map((e) => e.record.code))).toEqual(new Set(['E_SCHEMA']));
  });

  it.skipIf(!hasCorpus('readInputs on session-share'))(
    'walks directories in a fixed order: files by name, then subdirectories, so subagents follow their session',
    async () => {
      const walked: string[] = [];
      for await (const f of walkDataFiles(SESSION_SHARE)) walked.push(relative(SESSION_SHARE, f));
      expect(walked).toEqual([
        '0ccf1a04-1b4c-43b6-8aa5-79e41db43a68.jsonl',
        '4b2030ed-5563-49ea-b703-6a002f2d3cc8.jsonl',
        '0ccf1a04-1b4c-43b6-8aa5-79e41db43a68/subagents/agent-a5bdbc1.jsonl',
        '0ccf1a04-1b4c-43b6-8aa5-79e41db43a68/subagents/agent-a9cad17.jsonl',
        '0ccf1a04-1b4c-43b6-8aa5-79e41db43a68/subagents/agent-aa5ef13.jsonl',
        '0ccf1a04-1b4c-43b6-8aa5-79e41db43a68/subagents/agent-ac27727.jsonl',
        '0ccf1a04-1b4c-43b6-8aa5-79e41db43a68/subagents/agent-afbbf75.jsonl',
        '4b2030ed-5563-49ea-b703-6a002f2d3cc8/subagents/agent-a2018e5.jsonl',
      ]);
    },
  );

  it.skipIf(!hasCorpus('readInputs on the whole shared corpus'))(
    'converts all of the shared corpus in one pass: every unit accounted for, no errors, non-data files ignored',
    async () => {
      const items = await collect(readInputs([CORPUS as string], READ));
      expect(errorsOf(items)).toEqual([]);
      const jsonl = [...filesUnder(SPOTTER, /\.jsonl$/), ...filesUnder(SESSION_SHARE, /\.jsonl$/)].reduce((n, f) => n + lineCount(f), 0);
      const events = filesUnder(OPENHANDS, /\.json$/).reduce((n, f) => n + (JSON.parse(readFileSync(f, 'utf8')) as unknown[]).length, 0);
      const aider = lineCount(AIDER_HISTORY);
      expect(accountedUnits(items)).toBe(jsonl + 200 + filesUnder(SWE_AGENT, /\.traj$/).length + events + aider);
      const formats: Record<string, number> = {};
      for (const t of transcriptsOf(items)) {
        const f = (t.transcript.metadata?.source as { format: string } | undefined)?.format ?? 'unknown';
        formats[f] = (formats[f] ?? 0) + 1;
      }
      expect(formats).toEqual({ 'claude-code': 28, messages: 200, 'swe-agent': 22, openhands: 4, aider: 984 });
      // The licences, SOURCE.md, MANIFEST.tsv and aider's website example pages are not inputs; aider's chat history is.
      expect(items.some((i) => i.kind !== 'error' && i.file !== AIDER_HISTORY && /\.(md|tsv)$|LICENSE/.test(basename(i.file)))).toBe(false);
    },
  );
});
