import { Writable } from 'node:stream';
import { main } from '../../src/cli/main.js';
import type { SourceEnvironment } from '../../src/sources/types.js';

export interface MainResult {
  code: number;
  /** Always null: kept so a result reads like a child process's (see runCli). */
  signal: null;
  stdout: string;
  stderr: string;
}

function collector(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

/**
 * The CLI's own entry (main) in this process: the same commands, flags, messages and exit codes as the built binary,
 * without a node start and a tokenizer load per call. `env` is set for the call only; `environment` is where the commands
 * that read no input look for agent sessions (a fake home) instead of the user's own. Tests that need a real process
 * (a signal, a kill -9, a preload that injects faults, the package's bin) use runCli.
 */
export async function runMain(args: string[], options: { env?: Record<string, string>; environment?: SourceEnvironment } = {}): Promise<MainResult> {
  const out = collector();
  const err = collector();
  const saved = new Map<string, string | undefined>();
  for (const [key, value] of Object.entries(options.env ?? {})) {
    saved.set(key, process.env[key]);
    process.env[key] = value;
  }
  try {
    const code = await main(args, { stdout: out.stream, stderr: err.stream, environment: options.environment });
    return { code, signal: null, stdout: out.text(), stderr: err.text() };
  } finally {
    for (const [key, value] of saved) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}
