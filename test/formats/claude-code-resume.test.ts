import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readClaudeCode } from '../../src/formats/claude-code.js';
import { isAssistant, type Message } from '../../src/model/message.js';
import { followsResume, resumeLeftOut } from '../../src/model/recorded.js';
import type { Transcript } from '../../src/model/transcript.js';
import { recordedPromptTokens } from '../../src/replay/billing/recorded-usage.js';
import { Simulation } from '../../src/replay/simulation.js';
import { getTokenizer } from '../../src/tokens/tokenizer.js';
import { tempDir } from '../helpers/temp-dir.js';
import { READ, collect, transcriptsOf } from './helpers.js';

/**
 * A reply of three parallel Reads whose results sit on side records, then `--resume`: the history logged again from the
 * new leaf's chain, keeping only the call whose result is on it, and calls whose recorded input is that chain's (see
 * SOURCE.md).
 */
const FILE = join(import.meta.dirname, '..', 'fixtures', 'claude-code', 'resume-parallel-calls.jsonl');
/** The index of the first message after the resume (the prompt typed in the resumed session). */
const RESUMED_AT = 10;

/** The transcript as read before the resume rebuild was kept: the first message after it marked, nothing left out. */
const oldReading = (t: Transcript): Transcript => ({
  ...t,
  messages: t.messages.map((m) => {
    const { resume_left_out: _l, ...rest } = m as Record<string, unknown>;
    return rest as Message;
  }),
});

async function source(transcript: Transcript) {
  const simulation = new Simulation({ policies: ['source'], basePrompt: 'recorded', tokenizer: getTokenizer('o200k_base') });
  const { prompts, result } = await simulation.replayTranscript(transcript, { file: FILE, line: 1 });
  const calls = transcript.messages.flatMap((m, i) => (isAssistant(m) && recordedPromptTokens(m) !== undefined ? [i] : []));
  const recorded = calls.map((i) => recordedPromptTokens(transcript.messages[i]) as number);
  const after = calls.flatMap((i, k) => (i > RESUMED_AT ? [k] : []));
  const sum = (list: number[], ks: number[]) => ks.reduce((n, k) => n + list[k], 0);
  return { prompts: prompts.source, recorded, after, offAfter: sum(prompts.source, after) / sum(recorded, after) - 1, fidelity: result.fidelity };
}

describe('Claude Code: a resume whose rebuilt chain leaves parallel calls out', () => {
  let transcript: Transcript;
  beforeAll(async () => {
    [{ transcript }] = transcriptsOf(await collect(readClaudeCode(FILE, READ)));
  });

  it('keeps the original calls and marks the first message after the resume with the calls its chain left out', () => {
    const m = transcript.messages;
    expect(m[1]).toMatchObject({ role: 'assistant' });
    expect((m[1] as { tool_calls: { id: string }[] }).tool_calls.map((c) => c.id)).toEqual(['toolu_p1', 'toolu_p2', 'toolu_p3']);
    expect(m.filter((x) => x.role === 'tool').map((x) => x.tool_call_id)).toEqual(['toolu_p1', 'toolu_p2', 'toolu_p3', 'toolu_p4', 'toolu_n1']);
    expect(m.map((x, i) => (followsResume(x) ? i : -1)).filter((i) => i >= 0)).toEqual([RESUMED_AT]);
    expect(m[RESUMED_AT]).toMatchObject({ role: 'user', content: 'Now add a README that documents --prefix' });
    expect(resumeLeftOut(m[RESUMED_AT])).toEqual(['toolu_p1', 'toolu_p2']);
  });

  it('writes the same canonical transcript as the session with no resume: the copy dropped, the originals kept', async () => {
    // The file without the copy (uuids c-*), the resumed session going on from the original leaf.
    const lines = readFileSync(FILE, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { uuid: string; parentUuid: string | null })
      .filter((r) => !r.uuid.startsWith('c-'))
      .map((r) => (r.parentUuid === 'c-a6' ? { ...r, parentUuid: 'p-a6' } : r));
    const file = join(tempDir('resume'), 'no-resume.jsonl');
    writeFileSync(file, lines.map((r) => `${JSON.stringify(r)}\n`).join(''));
    const [plain] = transcriptsOf(await collect(readClaudeCode(file, READ)));
    const { resume_rebuild: _r, resume_left_out: _l, ...first } = transcript.messages[RESUMED_AT] as Record<string, unknown>;
    expect(transcript.messages.map((m, i) => (i === RESUMED_AT ? first : m))).toEqual(plain.transcript.messages);
    expect(plain.transcript.messages.some(followsResume)).toBe(false);
  });

  it('bills the calls after the resume without what the chain left out: within 2% of the record', async () => {
    const fixed = await source(transcript);
    expect(fixed.after).toHaveLength(3);
    expect(Math.abs(fixed.offAfter)).toBeLessThan(0.02);
    for (const k of fixed.after) expect(Math.abs(fixed.prompts[k] / fixed.recorded[k] - 1)).toBeLessThan(0.02);
    // Read as before, every call after the resume carries the two left-out calls and their results.
    const old = await source(oldReading(transcript));
    expect(old.offAfter).toBeGreaterThan(0.3);
  });

  it('names resume-rebuild in the fidelity table where the old reading departs', async () => {
    const old = await source(oldReading(transcript));
    expect(old.fidelity?.departure).toMatchObject({ messageIndex: RESUMED_AT + 1 });
    expect(old.fidelity?.departure?.causes).toContain('resume-rebuild');
    const fixed = await source(transcript);
    expect(fixed.fidelity?.departure).toBeUndefined();
  });
});
