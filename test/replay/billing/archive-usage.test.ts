import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readInputs } from '../../../src/formats/read-inputs.js';
import { ArchiveUsage } from '../../../src/replay/billing/archive-usage.js';
import { BUNDLED } from '../../helpers/paths.js';
import { runMain } from '../../helpers/cli-in-process.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * The bundled Claude Code folder: subagent.jsonl embeds 5 calls of a subagent whose file is not bundled; the
 * ae4a77f8 session embeds 2 calls of aac57f5, whose own file is among its subagents.
 */
const FOLDER = join(BUNDLED, 'claude-code');

async function archiveUsage() {
  const usage = new ArchiveUsage();
  for await (const item of readInputs([FOLDER], { maxLineBytes: 64 * 1024 * 1024 })) if (item.kind === 'transcript') usage.add(item.transcript);
  return usage.result()!;
}

describe('the recorded bill of an archive with embedded subagent calls', () => {
  it('adds the calls of a subagent without a transcript of its own, and counts the others in their own transcript only', async () => {
    const total = await archiveUsage();
    expect(total.embedded).toMatchObject({ agents: 1, calls: 5 });
    expect(total.inOwnTranscripts).toEqual({ agents: 1, calls: 2 });
  });

  it('stats reports each transcript’s usage and embedded calls, and the archive’s, in JSON and in text', { timeout: 60_000 }, async () => {
    const json = await runMain(['stats', FOLDER, '--json']);
    expect(json.code).toBe(0);
    const out = JSON.parse(json.stdout) as {
      recordedUsage: unknown;
      transcripts: { id: string; usage?: { recorded?: { calls: number }; embedded?: { agentId: string; calls: number }[] } }[];
    };
    expect(out.recordedUsage).toEqual(await archiveUsage());
    const embedding = out.transcripts.filter((t) => t.usage?.embedded);
    expect(embedding.map((t) => t.usage!.embedded!.map((e) => [e.agentId, e.calls]))).toEqual([[['aac57f5', 2]], [['afb92ff', 5]]]);
    const text = await runMain(['stats', FOLDER]);
    expect(text.stdout).toMatch(
      /^Embedded subagent calls \(progress records\): 5 calls, .* of 1 subagents without a transcript of their own; 2 calls of 1 subagents counted in their own transcripts$/m,
    );
  });

  it('simulate reports them per transcript and in recorded, and leaves transcripts without them as they were', { timeout: 120_000 }, async () => {
    const dir = tempDir('sim-embedded');
    const r = await runMain(['simulate', FOLDER, '--policy', 'none', '--out', dir]);
    expect(r.code).toBe(0);
    const json = JSON.parse(readFileSync(join(dir, 'simulate.json'), 'utf8')) as {
      recorded: { usage: { calls: number }; embedded: { agents: number; usage: { calls: number }; inOwnTranscripts: unknown } };
      perTranscript: { id: string; recorded?: unknown; embedded?: { agentId: string; calls: number; cost: { withCache: number } }[] }[];
    };
    expect(json.recorded.embedded).toMatchObject({ agents: 1, usage: { calls: 5 }, inOwnTranscripts: { agents: 1, calls: 2 } });
    const withEmbedded = json.perTranscript.filter((t) => t.embedded);
    expect(withEmbedded.map((t) => t.embedded!.map((e) => e.agentId))).toEqual([['aac57f5'], ['afb92ff']]);
    expect(withEmbedded.every((t) => t.embedded!.every((e) => e.cost.withCache > 0))).toBe(true);
    for (const t of json.perTranscript.filter((x) => !x.embedded)) expect(Object.keys(t)).not.toContain('embedded');
    expect(readFileSync(join(dir, 'simulate.md'), 'utf8')).toMatch(
      /Subagent calls embedded in the sessions' progress records, not replayed: 5 calls of 1 subagents without a transcript of their own among the inputs, .* 2 embedded calls of 1 subagents are counted in their own transcripts above\./,
    );
  });
});
