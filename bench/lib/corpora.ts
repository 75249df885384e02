import { existsSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REAL_TEXT_GENERATOR_VERSION, type TemplateTranscript, writeRealTextArchive } from '../../datasets/generate-real-text.js';
import { GENERATOR_VERSION, TOOL_HEAVY, writeArchive } from '../../datasets/generate.js';
import { readInputs } from '../../src/formats/read-inputs.js';
import { BUNDLED, SHARED_DATASETS, SPOTTER } from './paths.js';
import { listFiles, textsOfFiles } from './texts.js';

/** A set of real or synthetic transcripts a benchmark runs on. */
export type CorpusSpec =
  /** Real files: `inputs` are the paths handed to the readers (directories or files). */
  { name: string; kind: 'files'; inputs: string[] } | { name: string; kind: 'synthetic'; seed: number; bytes: number };

const isTranscriptFile = (n: string) => n.endsWith('.jsonl') || n.endsWith('.json') || n.endsWith('.traj');

/**
 * The real datasets. Quick: the bundled Claude Code sessions and SWE-agent trajectories (small). Full: every bundled
 * dataset, plus the shared spotter sessions and all 22 SWE-agent trajectories when present on this machine.
 */
export function realCorpora(quick: boolean): CorpusSpec[] {
  const claudeCode: CorpusSpec = { name: 'claude-code (bundled)', kind: 'files', inputs: [join(BUNDLED, 'claude-code')] };
  const sweBundled: CorpusSpec = { name: 'swe-agent (bundled, 3 trajectories)', kind: 'files', inputs: [join(BUNDLED, 'swe-agent')] };
  if (quick) return [claudeCode, sweBundled];
  const sweShared: CorpusSpec = { name: 'swe-agent (22 trajectories)', kind: 'files', inputs: [join(SHARED_DATASETS, 'swe-agent', 'files')] };
  const specs: CorpusSpec[] = [
    claudeCode,
    { name: 'tau-bench (bundled, 200 runs)', kind: 'files', inputs: [join(BUNDLED, 'tau-bench')] },
    existsSync(sweShared.inputs[0]) ? sweShared : sweBundled,
    { name: 'spotter (Claude Code, 20 files)', kind: 'files', inputs: [SPOTTER] },
  ];
  return specs.filter((s) => s.kind !== 'files' || s.inputs.every((p) => existsSync(p)));
}

/** The generator's shapes: its default (Claude Code's tool mix and output sizes) and {@link TOOL_HEAVY}. */
export type SyntheticShape = 'default' | 'tool-heavy';

/**
 * Path of a synthetic archive, generated once and cached under `dir` (the name carries the shape, generator version,
 * seed and size, and a `.done` marker is written only after the archive is complete).
 */
export async function syntheticArchive(dir: string, seed: number, bytes: number, shape: SyntheticShape = 'default'): Promise<string> {
  const file = join(dir, `synthetic${shape === 'default' ? '' : `-${shape}`}-v${GENERATOR_VERSION}-seed${seed}-${bytes}.jsonl`);
  if (existsSync(`${file}.done`) && existsSync(file)) return file;
  await writeArchive(`${file}.part`, { ...(shape === 'tool-heavy' ? TOOL_HEAVY : {}), seed, targetBytes: bytes });
  renameSync(`${file}.part`, file);
  writeFileSync(`${file}.done`, '');
  return file;
}

/** The input paths of a corpus (a synthetic one is generated on first use). */
export async function corpusInputs(spec: CorpusSpec, tmpDir: string): Promise<string[]> {
  return spec.kind === 'files' ? spec.inputs : [await syntheticArchive(tmpDir, spec.seed, spec.bytes)];
}

/** Every transcript file under the corpus's inputs. */
export async function corpusFiles(spec: CorpusSpec, tmpDir: string): Promise<string[]> {
  return (await corpusInputs(spec, tmpDir)).flatMap((p) => listFiles(p, isTranscriptFile));
}

export async function corpusTexts(spec: CorpusSpec, tmpDir: string): Promise<string[]> {
  return textsOfFiles(await corpusFiles(spec, tmpDir));
}

export function fileBytes(files: readonly string[]): number {
  let n = 0;
  for (const f of files) n += statSync(f).size;
  return n;
}

/** The real transcripts the real-text archive is spliced from: the shared datasets when present, else the bundled ones. */
async function realTemplates(): Promise<{ label: string; templates: TemplateTranscript[] }> {
  const shared = ['spotter', 'session-share', 'tau-bench', 'swe-agent', 'openhands'].map((d) => join(SHARED_DATASETS, d, 'files')).filter((p) => existsSync(p));
  const paths = shared.length > 0 ? shared : [BUNDLED];
  const templates: TemplateTranscript[] = [];
  for await (const item of readInputs(paths, { maxLineBytes: 64 * 1024 * 1024 })) if (item.kind === 'transcript') templates.push(item.transcript);
  return { label: shared.length > 0 ? 'shared' : 'bundled', templates };
}

/**
 * Path of a real-text archive (datasets/generate-real-text.ts) of about `bytes` bytes, generated once and cached under
 * `dir` like {@link syntheticArchive}; the name says which corpus it was spliced from.
 */
export async function realTextArchive(dir: string, seed: number, bytes: number): Promise<{ file: string; corpus: string; bytes: number }> {
  const corpus = existsSync(join(SHARED_DATASETS, 'spotter')) ? 'shared' : 'bundled';
  const file = join(dir, `realtext-v${REAL_TEXT_GENERATOR_VERSION}-${corpus}-seed${seed}-${bytes}.jsonl`);
  if (!(existsSync(`${file}.done`) && existsSync(file))) {
    const { templates } = await realTemplates();
    await writeRealTextArchive(`${file}.part`, templates, { seed, targetBytes: bytes });
    renameSync(`${file}.part`, file);
    writeFileSync(`${file}.done`, '');
  }
  return { file, corpus, bytes: statSync(file).size };
}
