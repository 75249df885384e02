import { TcompactError } from '../../errors.js';
import { VIEW_DIR } from '../../report/html/transcript-pages.js';
import { LARGEST_KEPT } from '../../report/transcript-spread.js';
import { defineCommand } from '../command.js';
import { text } from '../flag-values.js';
import { listFlag, valueFlag } from '../flags.js';
import { SECRET_FLAGS } from '../secret-flags.js';

export const FLAGS = {
  id: listFlag({
    valueName: 'ID',
    description: 'a transcript to show (repeatable)',
    parse: text,
    shownDefault: `the ${LARGEST_KEPT} largest, the ones report.html lists`,
  }),
  eval: valueFlag({
    valueName: 'EVAL_DIR',
    description: "the folder of 'tcompact eval --compacted RUN_DIR': the probes a strategy lost are marked where they occurred in the original",
    parse: text,
  }),
  out: valueFlag({ valueName: 'DIR', description: 'where the pages go', parse: text, shownDefault: `RUN_DIR/${VIEW_DIR}` }),
  ...SECRET_FLAGS,
};

export const viewCommand = defineCommand({
  name: 'view',
  usage: 'Usage: tcompact view RUN_DIR [--id ID]... [--eval EVAL_DIR] [--out DIR]',
  description: `Writes one self-contained HTML page per transcript of a 'tcompact run' folder: the original (given back by the side
store, as 'tcompact restore' does) on the left, the compacted transcript on the right, message by message; each
replaced piece with its placeholder, the strategy that replaced it, the tokens saved and its ref. Then writes the
run's report.html again, its table of the largest transcripts linking to their pages.`,
  flags: FLAGS,
  positionals: (positionals) => {
    if (positionals.length !== 1) throw new TcompactError('E_USAGE', "view: give exactly one run folder (the --out of 'tcompact run')");
  },
  epilogue:
    'Exit codes: 0 ok, 1 some transcript was not found or could not be restored (the others are written), 2 usage error, 74 a\nfile could not be read or written (E_IO).',
  run: async (args, io) => (await import('../actions/view.js')).viewAction(args, io),
});
