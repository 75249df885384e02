import { existsSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GENERATOR_VERSION, writeArchive } from '../../datasets/generate.js';
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

/**
 * Path of a synthetic archive, generated once and cached under `dir` (the name carries the generator version, seed and
 * size, and a `.done` marker is written only after the archive is complete).
 */
export async function syntheticArchive(dir: string, seed: number, bytes: number): Promise<string> {
  const file = join(dir, `synthetic-v${GENERATOR_VERSION}-seed${seed}-${bytes}.jsonl`);
  if (existsSync(`${file}.done`) && existsSync(file)) return file;
  await writeArchive(`${file}.part`, { seed, targetBytes: bytes });
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
