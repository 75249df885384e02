import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readClaudeCode } from '../../src/formats/claude-code.js';
import { isAssistant } from '../../src/model/message.js';
import { recordedCall } from '../../src/model/recorded.js';
import { findViolations } from '../../src/model/validity.js';
import { recordedUsage, usageOfCalls } from '../../src/replay/billing/recorded-usage.js';
import { tempDir } from '../helpers/temp-dir.js';
import { BUNDLED_CLAUDE_CODE, READ, accountedUnits, collect, lineCount, transcriptsOf } from './helpers.js';

type Rec = Record<string, unknown> & {
  uuid: string;
  parentUuid?: string | null;
  message: { id: string; content: { type: string }[]; usage: Record<string, unknown> };
};

const recordsOf = (file: string): Rec[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Rec);

/**
 * Two branches of a session running at once: a reply's text record and its tool_use record (one `message.id`, one
 * `requestId`) with a reply of the other branch logged between them. No file of the shared corpus does this, so the
 * case is the real bundled session tool_heavy.jsonl with such a record put between the two records of its first reply
 * logged in two (the other branch hangs off the same user turn, with a request of its own).
 */
const SOURCE = join(BUNDLED_CLAUDE_CODE, 'tool_heavy.jsonl');
const OTHER_USAGE = { input_tokens: 4, cache_creation_input_tokens: 2_283, cache_read_input_tokens: 160_878, output_tokens: 12 };

function withInterleavedBranch(dir: string): string {
  const records = recordsOf(SOURCE);
  const at = records.findIndex(
    (r, i) =>
      r.type === 'assistant' && r.message.content[0]?.type === 'text' && records[i + 1]?.type === 'assistant' && records[i + 1].message.id === r.message.id,
  );
  const other = {
    ...records[at],
    uuid: 'other-branch-reply',
    requestId: 'req_other_branch',
    message: { ...records[at].message, id: 'msg_other_branch', content: [{ type: 'text', text: 'The other branch answers.' }], usage: OTHER_USAGE },
  };
  const out = [...records.slice(0, at + 1), other, ...records.slice(at + 1)];
  const file = join(dir, 'interleaved.jsonl');
  writeFileSync(file, `${out.map((r) => JSON.stringify(r)).join('\n')}\n`);
  return file;
}

describe('Claude Code usage: a request logged apart is counted once', () => {
  it("counts the split reply's usage once: the session's own usage plus the other branch's request", async () => {
    const dir = tempDir('split-reply');
    const file = withInterleavedBranch(dir);
    const [original] = transcriptsOf(await collect(readClaudeCode(SOURCE, READ)));
    const items = await collect(readClaudeCode(file, READ));
    const [t] = transcriptsOf(items);
    const own = original.transcript.messages.flatMap((m) => (isAssistant(m) ? (recordedCall(m) ?? []) : []));
    expect(recordedUsage(t.transcript)).toEqual(
      usageOfCalls([own[0], ...own.slice(1, 2), recordedCall({ role: 'assistant', usage: OTHER_USAGE })!, ...own.slice(2)]),
    );
    expect(recordedUsage(t.transcript)!.calls).toBe(recordedUsage(original.transcript)!.calls + 1);
    expect(t.repairs).toEqual({ ...original.repairs, splitReplies: 1 });
  });

  it('keeps the later records as a message of their own, without usage, so each call stays right before its result', async () => {
    const dir = tempDir('split-reply');
    const file = withInterleavedBranch(dir);
    const items = await collect(readClaudeCode(file, READ));
    const [t] = transcriptsOf(items);
    const i = t.transcript.messages.findIndex((m) => isAssistant(m) && m.content === 'The other branch answers.');
    const [first, other, rest] = t.transcript.messages.slice(i - 1, i + 2);
    expect([isAssistant(first), first.usage !== undefined, other.usage, isAssistant(rest), rest.usage]).toEqual([true, true, OTHER_USAGE, true, undefined]);
    expect(isAssistant(rest) && rest.tool_calls?.length).toBe(1);
    expect(findViolations(t.transcript.messages)).toEqual([]);
    expect(accountedUnits(items)).toBe(lineCount(file));
  });
});

describe('Claude Code usage: subagent calls embedded in progress records', () => {
  const file = join(BUNDLED_CLAUDE_CODE, 'subagent.jsonl');

  it('lists each request of the subagent once, with its latest record usage, under the id its own file gets', async () => {
    const records = recordsOf(file) as (Rec & { data?: { type?: string; agentId?: string; message?: Rec & { requestId?: string } } })[];
    const latest = new Map<string, Record<string, unknown>>();
    for (const r of records) {
      const m = r.data?.message;
      if (r.type === 'progress' && r.data?.type === 'agent_progress' && m?.type === 'assistant') latest.set(m.message.id, m.message.usage);
    }
    const [t] = transcriptsOf(await collect(readClaudeCode(file, READ)));
    const sessionId = t.transcript.metadata!.sessionId as string;
    expect(t.transcript.metadata!.embeddedCalls).toEqual([
      {
        agentId: 'afb92ff',
        toolUseId: expect.any(String) as string,
        transcriptId: `${sessionId}:agent-afb92ff`,
        calls: [...latest.values()].map((usage) => ({ model: expect.any(String) as string, usage, timestamp: expect.any(String) as string })),
      },
    ]);
    expect(latest.size).toBe(5);
  });

  it('still skips the progress records, each line accounted for once, and adds nothing to a session without them', async () => {
    const items = await collect(readClaudeCode(file, READ));
    expect(accountedUnits(items)).toBe(lineCount(file));
    expect(items.filter((i) => i.kind === 'skipped' && i.reason === 'record:progress').length).toBeGreaterThanOrEqual(19);
    const [plain] = transcriptsOf(await collect(readClaudeCode(join(BUNDLED_CLAUDE_CODE, 'short.jsonl'), READ)));
    expect(plain.transcript.metadata).not.toHaveProperty('embeddedCalls');
  });
});
