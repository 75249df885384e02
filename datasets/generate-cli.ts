/**
 * `node --import tsx datasets/generate-cli.ts --out FILE --size 100MB [--seed N] [--tool-heavy] [--real-text PATH]...`:
 * writes a synthetic canonical archive (see generate.ts; `--tool-heavy` in its {@link TOOL_HEAVY} shape), or with
 * `--real-text` one spliced from the real transcripts under the
 * given paths, read as `tcompact run` reads them (see generate-real-text.ts), and prints its summary as JSON.
 */
import { parseArgs } from 'node:util';
import { readInputs } from '../src/formats/read-inputs.js';
import { type TemplateTranscript, writeRealTextArchive } from './generate-real-text.js';
import { TOOL_HEAVY, writeArchive } from './generate.js';

const UNITS: Record<string, number> = { '': 1, B: 1, KB: 1e3, MB: 1e6, GB: 1e9, KIB: 1024, MIB: 1024 ** 2, GIB: 1024 ** 3 };

/** `300MB`, `1GiB`, `50000` -> bytes; null when the text is not a size. */
export function parseSize(text: string): number | null {
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  const unit = match ? UNITS[match[2].toUpperCase()] : undefined;
  if (!match || unit === undefined) return null;
  return Math.round(Number(match[1]) * unit);
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      out: { type: 'string' },
      size: { type: 'string' },
      seed: { type: 'string', default: '1' },
      'real-text': { type: 'string', multiple: true },
      'tool-heavy': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  const usage = 'usage: generate-cli --out FILE --size SIZE (e.g. 100MB, 1GB) [--seed N] [--tool-heavy] [--real-text PATH]...';
  if (values.help) {
    console.log(usage);
    return 0;
  }
  const size = values.size === undefined ? null : parseSize(values.size);
  const seed = Number(values.seed);
  if (!values.out || size === null || size <= 0 || !Number.isInteger(seed)) {
    console.error(usage);
    return 2;
  }
  const started = performance.now();
  const real = values['real-text'];
  let summary: object;
  if (real && real.length > 0) {
    const templates: TemplateTranscript[] = [];
    for await (const item of readInputs(real, { maxLineBytes: 64 * 1024 * 1024 })) if (item.kind === 'transcript') templates.push(item.transcript);
    summary = { mode: 'real-text', templates: templates.length, ...(await writeRealTextArchive(values.out, templates, { seed, targetBytes: size })) };
  } else summary = await writeArchive(values.out, { ...(values['tool-heavy'] ? TOOL_HEAVY : {}), seed, targetBytes: size });
  const seconds = (performance.now() - started) / 1000;
  console.log(JSON.stringify({ file: values.out, seed, ...summary, seconds: Number(seconds.toFixed(2)) }));
  return 0;
}

process.exitCode = await main();
