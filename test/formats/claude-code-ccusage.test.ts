import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readInputs } from '../../src/formats/read-inputs.js';
import { recordedUsage } from '../../src/replay/billing/recorded-usage.js';
import { hasCorpus } from '../helpers/corpus.js';
import { READ, SESSION_SHARE, SPOTTER, collect, errorsOf, transcriptsOf } from './helpers.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'claude-code');

/** [uncached input, cache writes, cache reads, output] of one session, as ccusage reports them. */
type Tokens = [number, number, number, number];

/**
 * Recorded usage per session as ccusage sums it: a session is a main file (`<session>.jsonl`, named by its stem) and
 * its subagents' files (`<session>/subagents/agent-*.jsonl`).
 */
async function usageBySession(paths: string[]): Promise<Record<string, Tokens>> {
  const items = await collect(readInputs(paths, READ));
  expect(errorsOf(items)).toEqual([]);
  const out: Record<string, Tokens> = {};
  for (const { transcript } of transcriptsOf(items)) {
    const file = (transcript.metadata!.source as { file: string }).file;
    const session = basename(dirname(file)) === 'subagents' ? basename(dirname(dirname(file))) : basename(file, '.jsonl');
    const u = recordedUsage(transcript);
    if (!u) continue;
    const t = (out[session] ??= [0, 0, 0, 0]);
    t[0] += u.uncachedInput;
    t[1] += u.cacheCreation;
    t[2] += u.cacheRead;
    t[3] += u.output;
  }
  return out;
}

describe('Claude Code recorded usage equals ccusage, session by session', () => {
  it('on the fixtures, with the compaction agent re-logging the three replies of the session counted once', async () => {
    // `CLAUDE_CONFIG_DIR=$D npx -y ccusage@20.0.24 claude session --json --offline`, with $D/projects/-home-dev-project/
    // holding test/fixtures/claude-code/*.jsonl and acompact-relog/* (inputTokens, cacheCreationTokens, cacheReadTokens,
    // outputTokens).
    const ccusage: Record<string, Tokens> = {
      '7a1c0b2e-0000-4000-8000-000000000301': [15, 45_850, 72_600, 210],
      'permission-mode-first': [6, 21_580, 21_400, 92],
      'image-tool-result': [6, 21_220, 20_500, 70],
      'image-user-message': [3, 22_100, 0, 20],
      'inline-sidechain': [15, 27_220, 45_120, 190],
      'two-processes-fork': [18, 20_440, 100_679, 262],
      'synthetic-replies': [12, 20_660, 60_780, 155],
      'thinking-across-turns': [12, 20_320, 60_310, 25],
      'resume-parallel-calls': [21, 11_454, 46_903, 280],
      'compaction-unlogged-step': [18, 29_136, 125_342, 240],
      'compaction-attachments': [12, 23_748, 66_456, 160],
      'deepseek-backend': [18_538, 0, 18_432, 70],
      'microcompact-unlogged': [18, 40_570, 128_482, 240],
      'thinking-client-2.0': [12, 21_197, 60_121, 800],
      'thinking-client-2.1.20': [12, 23_510, 63_608, 800],
      'thinking-client-idle': [15, 42_518, 61_435, 1_000],
      'branches-compacting': [30, 31_264, 185_773, 400],
      'speculation-accept-first': [6, 19_890, 19_800, 55],
      'compaction-file-mentions': [18, 31_292, 118_295, 240],
      'interrupted-requests': [9, 20_053, 56_259, 120],
    };
    const files = Object.keys(ccusage)
      .filter((s) => !s.startsWith('7a1c'))
      .map((s) => join(FIXTURES, `${s}.jsonl`));
    expect(await usageBySession([...files, join(FIXTURES, 'acompact-relog')])).toEqual(ccusage);
  });

  it('marks the re-logged replies in the compaction agent, which makes one call of its own', async () => {
    const dir = join(FIXTURES, 'acompact-relog', '7a1c0b2e-0000-4000-8000-000000000301', 'subagents');
    const [agent] = transcriptsOf(await collect(readInputs([dir], READ)));
    expect(agent.repairs).toEqual({ loggedBySession: 3 });
    expect(recordedUsage(agent.transcript)).toMatchObject({ calls: 1, cacheCreation: 400, cacheRead: 24_300, output: 80 });
    expect(agent.transcript.messages.filter((m) => m.logged_by_session === true)).toHaveLength(3);
  });

  it.skipIf(!hasCorpus('Claude Code usage against ccusage'))('on the shared corpus', async () => {
    // The same command over spotter's and session-share's files, each folder laid out as one project.
    const ccusage: Record<string, Tokens> = {
      '258c7280-ae70-4798-800f-63464d01a85d': [198, 394_137, 14_972_534, 38_908],
      '8463c716-a2ea-4c14-9efa-87158ebd9f20': [2_578, 276_819, 16_207_141, 40_359],
      'fa812bfe-b295-4cca-9c2f-fdf01028cb46': [1_627, 360_809, 16_175_673, 36_307],
      '4d5611e5-241a-462a-8d15-5122611a9569': [233, 559_475, 12_387_553, 28_899],
      'ae4a77f8-aedd-4bc1-888f-c94edc91af04': [2_653, 377_624, 16_600_744, 49_482],
      subagent: [1_576, 25_842, 427_286, 1_586],
      tool_heavy: [54, 17_696, 88_231, 212],
      short: [3, 13_835, 11_515, 13],
      '6c2214d7-b87e-4432-8e41-22ba294ea584': [219, 39_438, 457_858, 28],
      '0ccf1a04-1b4c-43b6-8aa5-79e41db43a68': [88, 71_257, 278_912, 51],
      '4b2030ed-5563-49ea-b703-6a002f2d3cc8': [22, 19_357, 44_332, 12],
    };
    expect(await usageBySession([SPOTTER, SESSION_SHARE])).toEqual(ccusage);
  });
});
