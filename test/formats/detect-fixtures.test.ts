import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claimsOf, detectFormat } from '../../src/formats/detect.js';
import { FORMAT_NAMES, type FormatName } from '../../src/formats/types.js';
import { walkDataFiles } from '../../src/formats/walk.js';
import { BUNDLED } from '../helpers/paths.js';
import { READ } from './helpers.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');

/**
 * Fixture folders whose name is not the format their files are in. A file's expected format is given by the deepest
 * folder of its path (under test/fixtures/) that is named here or after a format; `none` marks files that are no
 * agent's input (detection must refuse them). A fixture folder named neither way fails the test until it is added.
 */
const FOLDERS: Readonly<Record<string, FormatName | 'none'>> = {
  roo: 'cline',
  'roo-code': 'cline',
  'codex-usage': 'codex',
  'gemini-usage': 'gemini',
  checkpoints: 'gemini-checkpoint',
  fidelity: 'claude-code',
  'adapter-sessions': 'claude-code',
  'side-store-v1': 'openai',
  strategies: 'none',
};
/** Files named here are not inputs although their folder's are (a side store beside the archive it belongs to). */
const NOT_INPUTS: Readonly<Record<string, 'none'>> = {
  'side-store-v1/refs.jsonl': 'none',
  'continue/sessions/sessions.json': 'none',
};

/** The generic readers of message lists: any conversation-shaped file fits them too, after its own format. */
const GENERIC: ReadonlySet<FormatName> = new Set(['messages', 'anthropic', 'openai']);

function expectedFormat(file: string): FormatName | 'none' | undefined {
  const rel = relative(FIXTURES, file).split(sep);
  const named = NOT_INPUTS[rel.join('/')];
  if (named) return named;
  let format: FormatName | 'none' | undefined;
  for (const dir of rel.slice(0, -1)) {
    if (FOLDERS[dir] !== undefined) format = FOLDERS[dir];
    else if ((FORMAT_NAMES as readonly string[]).includes(dir)) format = dir as FormatName;
  }
  return format;
}

async function dataFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  for await (const f of walkDataFiles(dir)) files.push(f);
  return files;
}

describe('detection of every reader fixture', () => {
  it('lands each fixture on its own reader, and no other format but the generic message lists claims it', async () => {
    const files = await dataFiles(FIXTURES);
    expect(files.length).toBeGreaterThan(20);
    const seen = new Set<string>();
    for (const file of files) {
      const expected = expectedFormat(file);
      expect(expected, `${relative(FIXTURES, file)}: name its folder in FOLDERS`).toBeDefined();
      const d = await detectFormat(file, READ);
      if (expected === 'none') {
        expect(d.ok && d.format !== undefined, `${file} is no input, yet detected as ${d.ok ? d.format : ''}`).toBe(false);
        continue;
      }
      expect(d.ok ? d.format : `${d.code}: ${d.message}`, file).toBe(expected);
      const others = (await claimsOf(file, READ)).filter((f) => f !== expected && !GENERIC.has(f));
      expect(others, `${file} is also claimed by`).toEqual([]);
      seen.add(expected as string);
    }
    // The formats the fixtures cover: a fixture folder that stops being walked would drop its format from this list.
    expect([...seen].sort()).toEqual(
      expect.arrayContaining(['claude-code', 'cline', 'codex', 'copilot', 'gemini', 'gemini-checkpoint', 'goose', 'opencode', 'openai']),
    );
  });

  it('lands the bundled transcripts on their readers', async () => {
    const expected: Record<string, FormatName> = {
      'claude-code': 'claude-code',
      openhands: 'openhands',
      'swe-agent': 'swe-agent',
      'tau-bench': 'messages',
      aider: 'aider',
    };
    for (const [dir, format] of Object.entries(expected)) {
      const files = await dataFiles(join(BUNDLED, dir));
      expect(files.length, dir).toBeGreaterThan(0);
      for (const f of files) {
        const d = await detectFormat(f, READ);
        expect(d.ok ? d.format : `${d.code}: ${d.message}`, f).toBe(format);
      }
    }
  });
});
