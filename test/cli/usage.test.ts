import { describe, expect, it } from 'vitest';
import { integer, text } from '../../src/cli/flag-values.js';
import { booleanFlag, listFlag, valueFlag } from '../../src/cli/flags.js';
import { renderHelp } from '../../src/cli/usage.js';

const EXTRA = { id: 'extra', heading: 'Extra (off unless --on):' };

describe('renderHelp', () => {
  it('prints usage, description, the options, each section with its note, then the epilogue', () => {
    const flags = {
      out: valueFlag({ valueName: 'DIR', description: 'output directory', parse: text, required: true }),
      on: booleanFlag({ description: 'turn the extras on', section: EXTRA }),
      workers: valueFlag({ valueName: 'N', description: 'worker threads', parse: integer(1), default: 4 }),
      name: listFlag({ valueName: 'NAME', description: 'a name,\nrepeatable', parse: text, shownDefault: 'all of them', section: EXTRA }),
    };
    const help = renderHelp({ usage: 'Usage: x <input...>', description: 'Does x.', notes: { extra: '(a note)' }, epilogue: 'Exit codes: 0 ok.' }, flags);
    expect(help).toBe(
      [
        'Usage: x <input...>',
        '',
        'Does x.',
        '',
        'Options:',
        '  --out DIR              output directory (required)',
        '  --workers N            worker threads (default 4)',
        '',
        'Extra (off unless --on):',
        '  --on                   turn the extras on',
        '  --name NAME            a name,',
        '                         repeatable (default: all of them)',
        '  (a note)',
        '',
        'Exit codes: 0 ok.',
      ].join('\n'),
    );
  });

  it('wraps a long description at a space under its column and never cuts a default that fits on a line', () => {
    const words = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
    const phrase = 'a phrase long enough to need its own line';
    const flags = {
      long: valueFlag({ valueName: 'X', description: words, parse: text }),
      full: valueFlag({ valueName: 'Y', description: 'x'.repeat(80), parse: text, shownDefault: phrase }),
    };
    const lines = renderHelp({ usage: 'u', description: 'd' }, flags).split('\n').slice(5);
    expect(lines.every((l) => l.length <= 120)).toBe(true);
    const [long, full] = [lines.slice(0, 3), lines.slice(3)];
    expect(long.slice(1).every((l) => l.startsWith(' '.repeat(25)) && l[25] !== ' ')).toBe(true);
    expect(long.map((l) => l.trim()).join(' ')).toBe(`--long X               ${words}`);
    expect(full).toEqual([`  --full Y               ${'x'.repeat(80)}`, `${' '.repeat(25)}(default: ${phrase})`]);
  });
});
