import { parseCompactConfig } from '../strategies/compact-config.js';
import { TOKENIZER_ENGINES } from '../tokens/bpe-engines.js';
import { integer, text } from './flag-values.js';
import { booleanFlag, listFlag, valueFlag, withoutDefault } from './flags.js';
import { INPUT_FLAGS } from './input-flags.js';

/**
 * The defaults help shows, taken from the config schema so help and behaviour never drift. The flags apply none
 * themselves: unset, the config file's value (or the schema's default) holds.
 */
const DEFAULTS = parseCompactConfig({});

/** The protected tail of the strategies: `compact`, `run`, `eval` and `simulate` take it. */
export const TAIL_FLAGS = {
  'keep-last': valueFlag({ valueName: 'N', description: 'last whole turns never modified', parse: integer(0), shownDefault: DEFAULTS.keepLast }),
  'keep-messages': valueFlag({ valueName: 'N', description: 'last messages never modified', parse: integer(0), shownDefault: DEFAULTS.keepMessages }),
  'keep-results': valueFlag({
    valueName: 'N',
    description: 'last tool results never modified, with their calls',
    parse: integer(0),
    shownDefault: DEFAULTS.keepResults,
  }),
};

/** The compaction job's settings, each one over the config file's: `compact` and `run` take them all. */
export const COMPACTION_FLAGS = {
  strategy: listFlag({
    valueName: 'NAME',
    description: 'a strategy or preset, repeatable, applied left to right',
    parse: text,
    shownDefault: DEFAULTS.strategies.join(', '),
  }),
  ...TAIL_FLAGS,
  window: valueFlag({ valueName: 'N', description: 'context window in tokens, for thresholds', parse: integer(1), shownDefault: DEFAULTS.window }),
  tokenizer: withoutDefault(INPUT_FLAGS.tokenizer),
  'tokenizer-engine': valueFlag({
    valueName: 'E',
    description: `the library counting o200k/cl100k, same counts: ${TOKENIZER_ENGINES.join(', ')}`,
    // The config schema checks the name, with the config file's message.
    parse: text,
    shownDefault: DEFAULTS.tokenizerEngine,
  }),
  config: valueFlag({
    valueName: 'FILE',
    description:
      'JSON config: strategies, keepLast, keepFirst, keepMessages, keepResults, window, tokenizer,\nrefs, toolHints, options (per strategy); flags override it',
    parse: text,
  }),
  'no-refs': booleanFlag({ description: 'do not keep replaced content (no side store; restore is impossible)' }),
};
