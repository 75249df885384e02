/**
 * CPU ms per input MB of exact counting alone, in one process: every text the pipeline hands its tokenizer (in the
 * pipeline's order, repeats included) counted through `createTokenizer` with its per-text cache, as a worker does.
 * Startup (loading the rank table) is measured apart. Run one engine per process:
 *   node --import tsx bench/token-cpu.ts ENGINE FILE_OR_FOLDER...
 * prints `{ engine, inputMB, texts, tokens, startupMs, countMs, countMsPerMB }` as JSON.
 */
import { statSync } from 'node:fs';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readInputs } from '../src/formats/read-inputs.js';
import { countTranscript } from '../src/tokens/breakdown.js';
import { TOKENIZER_ENGINES, type TokenizerEngine } from '../src/tokens/bpe-engines.js';
import { type Tokenizer, createTokenizer } from '../src/tokens/tokenizer.js';

function bytesOf(path: string): number {
  const s = statSync(path);
  if (!s.isDirectory()) return s.size;
  return readdirSync(path).reduce((sum, name) => sum + bytesOf(join(path, name)), 0);
}

function cpuMs(since?: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
}

async function main(): Promise<void> {
  const [engine, ...paths] = process.argv.slice(2);
  if (!(TOKENIZER_ENGINES as readonly string[]).includes(engine) || paths.length === 0) {
    throw new Error(`usage: token-cpu.ts ${TOKENIZER_ENGINES.join('|')} FILE...`);
  }
  const texts: string[] = [];
  const recorder: Tokenizer = {
    name: 'o200k_base',
    engine: null,
    count(text) {
      texts.push(text);
      return 0;
    },
  };
  for await (const item of readInputs(paths, { maxLineBytes: 64 * 1024 * 1024 })) if (item.kind === 'transcript') countTranscript(item.transcript, recorder);
  const inputMB = paths.reduce((sum, p) => sum + bytesOf(p), 0) / 1e6;
  const startupFrom = process.cpuUsage();
  const tokenizer = createTokenizer('o200k_base', { engine: engine as TokenizerEngine });
  tokenizer.count('warm up the rank table');
  const startupMs = cpuMs(startupFrom);
  const countFrom = process.cpuUsage();
  let tokens = 0;
  for (const text of texts) tokens += tokenizer.count(text);
  const countMs = cpuMs(countFrom);
  process.stdout.write(`${JSON.stringify({ engine, inputMB, texts: texts.length, tokens, startupMs, countMs, countMsPerMB: countMs / inputMB })}\n`);
}

await main();
