import { renderSources } from '../../report/render-sources.js';
import { currentEnvironment } from '../agent-environment.js';
import { EXIT } from '../exit-codes.js';
import { discover } from '../discovered-inputs.js';
import type { CliIO } from '../command.js';
import type { ParsedFlags } from '../flags.js';
import type { FLAGS } from '../commands/sources.js';

/** What 'tcompact sources' does with its parsed flags; loaded only when the command runs. */
export async function sourcesAction({ values }: ParsedFlags<typeof FLAGS>, io: CliIO): Promise<number> {
  const { found, searched } = await discover(values, io);
  if (values.json) {
    io.stdout.write(
      `${JSON.stringify({ sources: found, searched: searched.map((l) => ({ agent: l.agent, kind: l.kind, folder: l.dir, origin: l.origin })) }, null, 2)}\n`,
    );
  } else {
    for (const line of renderSources(found, searched, (io.environment ?? currentEnvironment()).home)) io.stdout.write(`${line}\n`);
  }
  return EXIT.OK;
}
