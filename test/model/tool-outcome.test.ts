import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentText } from '../../src/model/content.js';
import type { ToolMessage } from '../../src/model/message.js';
import { collapseWhitespace, errorLine, isFailedResult, MAX_ERROR_LINE_CHARS } from '../../src/model/tool-outcome.js';
import { bundledTranscripts } from '../helpers/bundled-transcripts.js';

/** The definition: every line of the whole text, tags read as line breaks (what the lazy reader must agree with). */
function allLines(text: string): string[] {
  return text
    .replace(/<\/?tool_use_error>/g, '\n')
    .split('\n')
    .map(collapseWhitespace)
    .filter((l) => l !== '');
}

const FAILURE_LINE = /^(?:error\b|fatal:|exception\b|traceback \(most recent call last\)|exit code [1-9]\d*\b)|command not found|no such file or directory/i;

const tool = (content: string): ToolMessage => ({ role: 'tool', tool_call_id: 'c1', content });

describe('tool outcome', () => {
  it('reads the first lines of every bundled tool result as the whole-text definition does', async () => {
    let results = 0;
    for (const t of await bundledTranscripts()) {
      for (const m of t.messages) {
        if (m.role !== 'tool') continue;
        const r = m as ToolMessage;
        results++;
        const lines = allLines(contentText(r.content));
        const plain = { ...r, is_error: undefined } as ToolMessage;
        expect(isFailedResult(plain)).toBe(
          lines[0] !== undefined &&
            /^(?:error\b|fatal:|exception\b|traceback \(most recent call last\)|exit code [1-9]\d*\b)|command not found|no such file or directory/i.test(
              lines[0],
            ),
        );
        const line = lines.find((l) => !/^exit code -?\d+$/i.test(l)) ?? lines[0];
        expect(errorLine(r)).toBe(line?.slice(0, MAX_ERROR_LINE_CHARS).trimEnd());
      }
    }
    expect(results).toBeGreaterThan(500);
  });

  it('reads a first line with runs of any whitespace in it as the whole-text definition does', () => {
    // Words of the failure patterns, joined by whitespace runs of every kind the collapse folds (tabs, no-break and
    // ideographic spaces, a BOM), so the raw line and its collapsed copy differ.
    const word = fc.constantFrom(
      'error',
      'Error:',
      'fatal:',
      'exception',
      'traceback',
      '(most',
      'recent',
      'call',
      'last)',
      'exit',
      'code',
      '0',
      '12',
      'command',
      'not',
      'found',
      'no',
      'such',
      'file',
      'or',
      'directory',
      'x',
      '<tool_use_error>',
      '</tool_use_error>',
      '<b>',
    );
    const space = fc.constantFrom('', ' ', '  ', '\t', '\u00a0', '\u3000', '\ufeff', '\r', '\n', ' \n ');
    const text = fc.array(fc.tuple(space, word), { maxLength: 12 }).map((parts) => parts.map(([s, w]) => s + w).join(''));
    fc.assert(
      fc.property(fc.tuple(space, text, space), ([before, body, after]) => {
        const content = before + body + after;
        const lines = allLines(content);
        expect(isFailedResult(tool(content))).toBe(lines[0] !== undefined && FAILURE_LINE.test(lines[0]));
      }),
      { numRuns: 2000 },
    );
  });

  it('skips blank lines, a bare exit code and the tool_use_error tags', () => {
    expect(errorLine(tool('\n\n  Exit code 1\n<tool_use_error>  No   such file\tor directory </tool_use_error>\nmore'))).toBe('No such file or directory');
    expect(isFailedResult(tool('\n   \nfatal: not a git repository\nhint'))).toBe(true);
    expect(isFailedResult(tool('ok\nError: later lines do not count'))).toBe(false);
    expect(errorLine(tool('Exit code 2'))).toBe('Exit code 2');
    expect(errorLine(tool(' \n '))).toBeUndefined();
  });
});
