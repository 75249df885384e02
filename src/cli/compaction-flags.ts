import { TcompactError } from '../errors.js';
import { FORMAT_NAMES, type FormatName } from '../formats/types.js';
import { DEFAULT_MAX_LINE_BYTES } from '../io/line-reader.js';
import { TOKENIZER_ENGINES } from '../tokens/bpe-engines.js';
import { parseCompactConfig } from '../strategies/compact-config.js';
import { TOKENIZER_NAMES, type TokenizerName } from '../tokens/tokenizer.js';

/** The defaults every command shows in its help, taken from the config schema so help and behaviour never drift. */
const DEFAULTS = parseCompactConfig({});

/** The flags of the compaction job, as `node:util` parseArgs options; each command picks those it takes. */
export const COMPACTION_FLAG_SPECS = {
  strategy: { type: 'string', multiple: true },
  config: { type: 'string' },
  'keep-last': { type: 'string' },
  'keep-messages': { type: 'string' },
  'keep-results': { type: 'string' },
  window: { type: 'string' },
  tokenizer: { type: 'string' },
  'tokenizer-engine': { type: 'string' },
  'no-refs': { type: 'boolean' },
} as const;

/** How inputs are read: every command that reads transcripts takes these. */
export const INPUT_FLAG_SPECS = {
  from: { type: 'string' },
  'max-line-bytes': { type: 'string' },
} as const;

const HELP: Record<keyof typeof COMPACTION_FLAG_SPECS | keyof typeof INPUT_FLAG_SPECS, string> = {
  strategy: `  --strategy NAME        a strategy or preset, repeatable, applied left to right (default: ${DEFAULTS.strategies.join(', ')})`,
  config: `  --config FILE          JSON config: strategies, keepLast, keepFirst, keepMessages, keepResults, window, tokenizer,
                         refs, toolHints, options (per strategy); flags override it`,
  'keep-last': `  --keep-last N          last whole turns never modified (default ${DEFAULTS.keepLast})`,
  'keep-messages': `  --keep-messages N      last messages never modified (default ${DEFAULTS.keepMessages})`,
  'keep-results': `  --keep-results N       last tool results never modified, with their calls (default ${DEFAULTS.keepResults})`,
  window: `  --window N             context window in tokens, for thresholds (default ${DEFAULTS.window})`,
  tokenizer: `  --tokenizer NAME       ${TOKENIZER_NAMES.map((n) => (n === DEFAULTS.tokenizer ? `${n} (default)` : n)).join(', ')} (heuristic: chars/4, only when asked)`,
  'tokenizer-engine': `  --tokenizer-engine E   the library counting o200k/cl100k, same counts: ${TOKENIZER_ENGINES.map((e) => (e === DEFAULTS.tokenizerEngine ? `${e} (default)` : e)).join(', ')}`,
  'no-refs': '  --no-refs              do not keep replaced content (no side store; restore is impossible)',
  from: `  --from FORMAT          force the input format instead of detecting it (${FORMAT_NAMES.join(', ')})`,
  'max-line-bytes': `  --max-line-bytes N     reject longer lines with E_LINE_TOO_LONG before parsing (default ${DEFAULT_MAX_LINE_BYTES})`,
};

/** Help lines for the given shared flags, in the order given, with today's defaults. */
export function sharedFlagsHelp(flags: readonly (keyof typeof HELP)[]): string {
  return flags.map((f) => HELP[f]).join('\n');
}

export function parseTokenizer(value: string | undefined): TokenizerName {
  if (value === undefined) return DEFAULTS.tokenizer;
  if (!(TOKENIZER_NAMES as readonly string[]).includes(value)) {
    throw new TcompactError('E_USAGE', `--tokenizer must be one of ${TOKENIZER_NAMES.join(', ')}, got "${value}"`);
  }
  return value as TokenizerName;
}

export function parseFormat(value: string | undefined): FormatName | undefined {
  if (value === undefined) return undefined;
  if (!(FORMAT_NAMES as readonly string[]).includes(value)) {
    throw new TcompactError('E_USAGE', `--from must be one of ${FORMAT_NAMES.join(', ')}, got "${value}"`);
  }
  return value as FormatName;
}
