import { FORMAT_NAMES } from '../formats/types.js';
import { DEFAULT_MAX_LINE_BYTES } from '../io/line-reader.js';
import { parseCompactConfig } from '../strategies/compact-config.js';
import { TOKENIZER_NAMES } from '../tokens/tokenizer.js';
import { integer, oneOf } from './flag-values.js';
import { valueFlag } from './flags.js';

/** How inputs are read: every command that reads transcripts takes these. */
export const READ_FLAGS = {
  from: valueFlag({
    valueName: 'FORMAT',
    description: `force the input format instead of detecting it (${FORMAT_NAMES.join(', ')})`,
    parse: oneOf(FORMAT_NAMES),
  }),
  'max-line-bytes': valueFlag({
    valueName: 'N',
    description: 'reject longer lines with E_LINE_TOO_LONG before parsing',
    parse: integer(1),
    default: DEFAULT_MAX_LINE_BYTES,
  }),
};

/**
 * How inputs are read and counted: the commands without a config file (stats, eval, simulate, tune) take these;
 * `compact` and `run` take their --tokenizer from the compaction flags.
 */
export const INPUT_FLAGS = {
  tokenizer: valueFlag({
    valueName: 'NAME',
    description: `${TOKENIZER_NAMES.join(', ')} (heuristic: chars/4, only when asked)`,
    parse: oneOf(TOKENIZER_NAMES),
    default: parseCompactConfig({}).tokenizer,
  }),
  ...READ_FLAGS,
};
