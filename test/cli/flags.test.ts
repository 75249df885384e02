import { describe, expect, expectTypeOf, it } from 'vitest';
import { requireInputs } from '../../src/cli/command.js';
import { COMMANDS } from '../../src/cli/commands.js';
import { COMPACTION_FLAGS } from '../../src/cli/compaction-flags.js';
import { integer, oneOf, recordedOr } from '../../src/cli/flag-values.js';
import { type FlagTable, booleanFlag, listFlag, parseFlags, valueFlag } from '../../src/cli/flags.js';
import { INPUT_FLAGS } from '../../src/cli/input-flags.js';
import { REPLAY_FLAGS } from '../../src/cli/replay-flags.js';
import type { FormatName } from '../../src/formats/types.js';
import { DEFAULT_MAX_LINE_BYTES } from '../../src/io/line-reader.js';
import { DEFAULT_POLICIES } from '../../src/replay/policies/built-in.js';
import { DEFAULT_WINDOW } from '../../src/tokens/window.js';

/** Every command's module, loaded as dispatching it would (the table loads none of them itself). */
const LOADED = await Promise.all(COMMANDS.map((c) => c.load()));
const command = (name: string) => LOADED.find((c) => c.name === name)!;

/** The E_USAGE error parsing throws, as [code, message]. */
function usageError(name: string, argv: string[], table: FlagTable = command(name).flags): [string, string] | undefined {
  try {
    parseFlags(name, argv, table);
    return undefined;
  } catch (err) {
    const { code, message } = err as { code: string; message: string };
    return [code, message];
  }
}

describe('parseFlags', () => {
  it("each entry of the command table loads the command of that entry's name", () => {
    expect(LOADED.map((c) => c.name)).toEqual(COMMANDS.map((c) => c.name));
  });

  it.each(COMMANDS.map((c) => c.name))('%s: help lists exactly the flags its parser accepts, and the parser refuses any other', (name) => {
    const { help, flags } = command(name);
    const listed = [...help.matchAll(/^ {2}--([a-z0-9-]+)/gm)].map((m) => m[1]);
    expect(listed).toEqual(Object.keys(flags));
    for (const [flag, spec] of Object.entries(flags)) {
      // Whatever the value's fate, the parser knows the flag.
      const error = usageError(name, spec.kind === 'boolean' ? [`--${flag}`] : [`--${flag}`, 'x'])?.[1] ?? '';
      expect([flag, error]).not.toEqual([flag, expect.stringContaining('Unknown option')]);
    }
    expect(usageError(name, ['--no-such-flag'])?.[1]).toMatch(new RegExp(`^${name}: Unknown option '--no-such-flag'`));
  });

  it.each([
    ['stats', ['--window', '0'], '--window must be an integer from 1 to 9007199254740991, got "0"'],
    ['stats', ['--tokenizer', 'words'], '--tokenizer must be one of o200k_base, cl100k_base, heuristic, got "words"'],
    ['convert', ['--out', 'o.jsonl', '--to', 'yaml'], '--to must be one of openai, anthropic, got "yaml"'],
    ['simulate', ['--out', 'd', '--price-in', 'cheap'], '--price-in must be a number >= 0, got "cheap"'],
    ['simulate', ['--out', 'd', '--token-ratio', '0'], '--token-ratio must be a number > 0, got "0"'],
    ['simulate', ['--out', 'd', '--cache', 'lru'], 'simulate: --cache must be one of anthropic-5m, anthropic-1h, openai, google, ideal, none (got "lru")'],
    ['tune', ['--out', 'd', '--recall-floor', '1.5'], '--recall-floor must be between 0 and 1, got "1.5"'],
    ['tune', ['--out', 'd', '--recall-floor=-1'], '--recall-floor must be a number >= 0, got "-1"'],
    ['compact', ['--price-in=-1'], '--price-in must be a number of US dollars per million tokens, got "-1"'],
    ['run', ['--out', 'd', '--batch-poll-seconds', '0'], '--batch-poll-seconds must be a number of seconds > 0, got "0"'],
    ['run', ['--out', 'd', '--workers', '0'], '--workers must be an integer from 1 to 256, got "0"'],
    ['eval', [], 'eval: --out DIR is required'],
    ['eval', ['--out', ''], 'eval: --out DIR is required'],
    ['run', [], "run: --out DIR is required (see 'tcompact run --help')"],
  ])('%s %j: E_USAGE with the exact message', (name, argv, message) => {
    expect(usageError(name, argv)).toEqual(['E_USAGE', message]);
  });

  it('lets a flag read the others: --workers 0 is a coordinator alone, valid with --queue', () => {
    expect(parseFlags('run', ['--out', 'd', '--workers', '0', '--queue', 'redis://127.0.0.1:6379'], command('run').flags).values.workers).toBe(0);
  });

  it('applies the defaults of the flags not given, typed by the table', () => {
    const table = { out: valueFlag({ valueName: 'DIR', description: 'out', parse: (raw) => raw, required: true }), ...REPLAY_FLAGS, ...INPUT_FLAGS };
    const { values } = parseFlags('simulate', ['--out', 'd', '--base-prompt', 'recorded'], table);
    expect(values).toEqual({
      out: 'd',
      window: DEFAULT_WINDOW,
      'base-prompt': 'recorded',
      'token-ratio': 1,
      cache: undefined,
      // No price given: each call is billed at its model's list price (provider/model-prices.ts).
      prices: undefined,
      'price-in': undefined,
      'price-out': undefined,
      tokenizer: 'o200k_base',
      from: undefined,
      'max-line-bytes': DEFAULT_MAX_LINE_BYTES,
    });
    expectTypeOf(values.out).toEqualTypeOf<string>();
    expectTypeOf(values.window).toEqualTypeOf<number>();
    expectTypeOf(values['base-prompt']).toEqualTypeOf<number | 'recorded'>();
    expectTypeOf(values.from).toEqualTypeOf<FormatName | undefined>();
    expect(parseFlags('simulate', ['--out', 'd'], command('simulate').flags).values.policy).toEqual(DEFAULT_POLICIES);
  });

  it('leaves the flags that defer to a config file undefined, though help shows their default', () => {
    const { values } = parseFlags('compact', [], COMPACTION_FLAGS);
    expect([values.tokenizer, values.window, values['keep-messages'], values['no-refs']]).toEqual([undefined, undefined, undefined, false]);
    expect(command('compact').help).toContain('--keep-messages N      last messages never modified (default 10)');
  });

  it('collects a repeatable flag in the order given, each value through its parser', () => {
    const table = {
      trigger: listFlag({ valueName: 'N', description: 'a trigger', parse: recordedOr(integer(1)) }),
      mode: listFlag({ valueName: 'M', description: 'a mode', parse: oneOf(['a', 'b']), default: ['a'] }),
      quiet: booleanFlag({ description: 'quiet' }),
    };
    const { values } = parseFlags('x', ['--trigger', '3', '--quiet', '--trigger', 'recorded', '--trigger', '1'], table);
    expect(values).toEqual({ trigger: [3, 'recorded', 1], mode: ['a'], quiet: true });
    expectTypeOf(values.trigger).toEqualTypeOf<(number | 'recorded')[] | undefined>();
    expectTypeOf(values.mode).toEqualTypeOf<('a' | 'b')[]>();
    expect(usageError('x', ['--mode', 'a', '--mode', 'c'], table)).toEqual(['E_USAGE', '--mode must be one of a, b, got "c"']);
  });

  it('checks the inputs before any flag value', () => {
    expect(() => parseFlags('stats', ['--window', '0'], command('stats').flags, requireInputs('stats'))).toThrow(
      "stats: no input given (see 'tcompact stats --help')",
    );
  });
});
