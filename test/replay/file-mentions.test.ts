import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readInputs } from '../../src/formats/read-inputs.js';
import { fileMentions } from '../../src/formats/_claude-code-mentions.js';
import { runMain } from '../helpers/cli-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';
import { READ, collect, transcriptsOf } from '../formats/helpers.js';

/**
 * A Claude Code 2.1.39 session whose first prompt names src/handlers.ts and docs/validation.md with `@`: their
 * contents went with the prompt, unlogged, and no call after the compaction sent them again. Every recorded input is
 * 20,000 tokens of system prompt and tools plus what the call sent (see the fixture's generator).
 */
const FILE = join(import.meta.dirname, '..', 'fixtures', 'claude-code', 'compaction-file-mentions.jsonl');

interface Fidelity {
  input: { recorded: number; replayed: number };
  corrected: string[];
  estimated: string[];
}

async function simulate(): Promise<{ basePrompt: number; fidelity: Fidelity }> {
  const out = tempDir('file-mentions');
  const result = await runMain(['simulate', FILE, '--policy', 'source', '--token-ratio', '1', '--base-prompt', 'recorded', '--out', out]);
  expect(result.code).toBe(0);
  const sim = JSON.parse(readFileSync(join(out, 'simulate.json'), 'utf8')) as { perTranscript: { basePrompt: number; fidelity: Fidelity }[] };
  return sim.perTranscript[0];
}

describe('the @file contents of a Claude Code first prompt', () => {
  it('are read from the prompt as the files it names', async () => {
    expect(fileMentions('Fix @src/a.ts and @"docs/my notes.md", see @src/b.ts#L10-20.')).toEqual(['docs/my notes.md', 'src/a.ts', 'src/b.ts']);
    expect(fileMentions('ask @agent-reviewer about @moduledoc, mail dev@example.com, read @github:repo://x')).toEqual([]);
    const [{ transcript }] = transcriptsOf(await collect(readInputs([FILE], READ)));
    expect(transcript.messages[0].file_mentions).toEqual(['src/handlers.ts', 'docs/validation.md']);
    expect(transcript.messages.filter((m) => m.file_mentions !== undefined)).toHaveLength(1);
  });

  it('are sent with that prompt and dropped with it at the compaction, not kept in the base prompt', async () => {
    const { basePrompt, fidelity } = await simulate();
    expect(basePrompt).toBe(20_000);
    // Without them apart, the base held both files and every call after the compaction sent them again (+7k each).
    expect(Math.abs(fidelity.input.replayed - fidelity.input.recorded)).toBeLessThanOrEqual(fidelity.input.recorded * 0.001);
    expect(fidelity.corrected).toEqual([
      expect.stringMatching(/^1 @file attachment of the first prompt sent with it, not in the base prompt \(4,\d{3} tokens\)$/),
    ]);
    expect(fidelity.estimated).toEqual([expect.stringMatching(/^1 @file attachment of the first prompt sized from the record \(2,\d{3} tokens\)$/)]);
  });
});
