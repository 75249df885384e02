import { parseArgs } from 'node:util';
import { TcompactError } from '../errors.js';

/** Where a flag value is read, for the messages of its parser. */
export interface FlagAt {
  readonly command: string;
  /** The flag's name, without the dashes. */
  readonly flag: string;
  /** Whether the command line gives another flag: for a flag whose valid values depend on it. */
  given(flag: string): boolean;
}

/** Reads one value of a flag: the typed value, or a TcompactError('E_USAGE') with the exact message. */
export type FlagParser<T> = (raw: string, at: FlagAt) => T;

/** A block of a command's help after its "Options:": the LLM steps, the Batch API. */
export interface FlagSection {
  readonly id: string;
  /** The block's first line, e.g. `Batch API (half price, answers within 24 h; needs --model):`. */
  readonly heading: string;
}

interface FlagDoc {
  /** What the flag does, as help prints it; `\n` starts a new line. */
  readonly description: string;
  /** The help block that lists the flag. @default the command's "Options:" */
  readonly section?: FlagSection;
  /**
   * The default as help shows it: a number (`(default 4)`) or a phrase (`(default: no limit of our own)`). For a flag
   * whose parser applies none (the config file, the engine or another flag decides), or whose `default` would not
   * read well; else help shows `default`.
   */
  readonly shownDefault?: number | string;
}

/** `--name`: true when given. */
export interface BooleanFlag extends FlagDoc {
  readonly kind: 'boolean';
}

/** `--name VALUE`, once. */
export interface ValueFlag<T> extends FlagDoc {
  readonly kind: 'value';
  /** The value's name in help: N, X, FILE, DIR, MODEL... */
  readonly valueName: string;
  readonly parse: FlagParser<T>;
  /** The value when the flag is not given (shown in help). Without it (and not required), the value is undefined. */
  readonly default?: T;
  /**
   * Absent (or empty) is an E_USAGE error, `COMMAND: --NAME VALUE is required`, followed by a pointer to the
   * command's help with 'see help'.
   */
  readonly required?: true | 'see help';
}

/** `--name VALUE`, repeatable: every value, in order. */
export interface ListFlag<T> extends FlagDoc {
  readonly kind: 'list';
  readonly valueName: string;
  readonly parse: FlagParser<T>;
  /** The values when the flag is not given (shown in help). Without it, the value is undefined. */
  readonly default?: readonly T[];
}

export type Flag = BooleanFlag | ValueFlag<unknown> | ListFlag<unknown>;

/** A command's flags by name (without the dashes), in the order help lists them. */
export type FlagTable = Readonly<Record<string, Flag>>;

/** The parsed value of a flag: undefined only when it may be absent (no default, not required). */
export type FlagValue<F> = F extends { kind: 'boolean' }
  ? boolean
  : F extends { kind: 'list'; parse: FlagParser<infer T> }
    ? F extends { default: readonly unknown[] }
      ? T[]
      : T[] | undefined
    : F extends { kind: 'value'; parse: FlagParser<infer T> }
      ? F extends { default: unknown } | { required: unknown }
        ? T
        : T | undefined
      : never;

export type FlagValues<F extends FlagTable> = { -readonly [K in keyof F]: FlagValue<F[K]> };

export interface ParsedFlags<F extends FlagTable> {
  values: FlagValues<F>;
  positionals: string[];
}

/** `--name`. */
export function booleanFlag<D extends Omit<BooleanFlag, 'kind'>>(doc: D): D & { readonly kind: 'boolean' } {
  return { ...doc, kind: 'boolean' };
}

/** `--name VALUE`; the value's type is what `parse` returns. */
export function valueFlag<D extends Omit<ValueFlag<unknown>, 'kind'>>(spec: D): D & { readonly kind: 'value' } {
  return { ...spec, kind: 'value' };
}

/** `--name VALUE`, repeatable. */
export function listFlag<D extends Omit<ListFlag<unknown>, 'kind'>>(spec: D): D & { readonly kind: 'list' } {
  return { ...spec, kind: 'list' };
}

/** The same flag with no default of its own, so that unset it leaves the decision to a config file; help still shows it. */
export function withoutDefault<F extends ValueFlag<number | string>>(flag: F): Omit<F, 'default'> {
  const { default: value, ...rest } = flag;
  return { ...rest, shownDefault: flag.shownDefault ?? value };
}

/**
 * Checks the positionals (the inputs) before any flag value, so that a bare command first says what it lacks;
 * `given` tells whether a flag is on the command line.
 */
export type PositionalsCheck = (positionals: readonly string[], given: (flag: string) => boolean) => void;

/**
 * Parses argv against a command's table: unknown flags, a missing value and a bad one are E_USAGE errors; defaults
 * apply; every value comes out typed by its flag's parser. `checkPositionals` runs between the two.
 */
export function parseFlags<const F extends FlagTable>(command: string, argv: readonly string[], table: F, checkPositionals?: PositionalsCheck): ParsedFlags<F> {
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean }> = {};
  for (const [name, flag] of Object.entries(table)) {
    options[name] = flag.kind === 'boolean' ? { type: 'boolean' } : { type: 'string', ...(flag.kind === 'list' ? { multiple: true } : {}) };
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new TcompactError('E_USAGE', `${command}: ${(err as Error).message}`);
  }
  const raw = parsed.values;
  const given = (flag: string): boolean => raw[flag] !== undefined;
  checkPositionals?.(parsed.positionals, given);
  const values: Record<string, unknown> = {};
  for (const [name, flag] of Object.entries(table)) values[name] = _valueOf(flag, raw[name], { command, flag: name, given });
  return { values: values as FlagValues<F>, positionals: parsed.positionals };
}

function _valueOf(flag: Flag, raw: string | boolean | (string | boolean)[] | undefined, at: FlagAt): unknown {
  if (flag.kind === 'boolean') return raw === true;
  if (flag.kind === 'list') {
    if (raw === undefined) return flag.default === undefined ? undefined : [...flag.default];
    return (raw as string[]).map((value) => flag.parse(value, at));
  }
  if (raw === undefined || (raw === '' && flag.required !== undefined)) {
    if (flag.required !== undefined) {
      const help = flag.required === 'see help' ? ` (see 'tcompact ${at.command} --help')` : '';
      throw new TcompactError('E_USAGE', `${at.command}: --${at.flag} ${flag.valueName} is required${help}`);
    }
    return flag.default;
  }
  return flag.parse(raw as string, at);
}
