import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readInputs } from '../../src/formats/read-inputs.js';
import { transcriptProject } from '../../src/model/project.js';
import { BUNDLED } from '../helpers/paths.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');

/** The projects of the transcripts each file holds, as read. */
async function projectsIn(file: string): Promise<(string | undefined)[]> {
  const out: (string | undefined)[] = [];
  for await (const item of readInputs([file], { maxLineBytes: 64 * 1024 * 1024 })) if (item.kind === 'transcript') out.push(transcriptProject(item.transcript));
  return out;
}

describe('transcriptProject', () => {
  it("reads the project each agent's reader records: the working directory, or Gemini CLI's project hash", async () => {
    expect(await projectsIn(join(BUNDLED, 'claude-code', 'short.jsonl'))).toEqual(['/home/marco/projects/spotter']);
    expect(await projectsIn(join(FIXTURES, 'codex', 'rollout-2026-03-02T10-00-00-019cad3e-7b41-7c20-9e6d-3f5a8b2c1d90.jsonl'))).toEqual(['/home/dev/api']);
    expect(await projectsIn(join(FIXTURES, 'gemini', 'chats', 'session-2026-05-02T10-15-8d582aea.jsonl'))).toEqual([
      '79b6fa86e3c0d31765c7e3c6de511a7b96342a2e947135d5db396e49e27020cd',
    ]);
    expect(await projectsIn(join(FIXTURES, 'goose', '20251112_094402.jsonl'))).toEqual(['/home/dev/todo-cli']);
    expect(await projectsIn(join(FIXTURES, 'opencode', 'ses_5b2e1c7d9ffeAbCdEf012345.json'))).toEqual(['/home/dev/todo-cli']);
  });

  it('is undefined for a transcript that records none, and takes the working directory first', () => {
    expect(transcriptProject({})).toBeUndefined();
    expect(transcriptProject({ metadata: { cwd: '', source: { file: '/x' } } })).toBeUndefined();
    expect(transcriptProject({ metadata: { projectHash: 'abc', cwd: '/home/dev/app' } })).toBe('/home/dev/app');
    expect(transcriptProject({ metadata: { workspace: '/home/dev/roo' } })).toBe('/home/dev/roo');
  });
});
