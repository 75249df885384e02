import { booleanFlag } from './flags.js';

/** The flag of every command whose outputs people share: secrets are masked as `[secret: KIND]` unless it is given. */
export const SECRET_FLAGS = {
  'show-secrets': booleanFlag({
    description:
      'leave API keys, tokens, private keys and URL passwords as they are in reports, pages, progress and errors\n(masked as [secret: KIND] by default)',
  }),
};
