import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readInputs } from '../../src/formats/read-inputs.js';
import { contentText } from '../../src/model/content.js';
import type { Message } from '../../src/model/message.js';
import type { Transcript } from '../../src/model/transcript.js';
import { findViolations, lastUserRequestIndex } from '../../src/model/validity.js';
import { extractFacts } from '../../src/strategies/_checkpoint-facts.js';
import { protectedRange } from '../../src/strategies/boundaries.js';
import { checkpoint, checkpointBudget } from '../../src/strategies/checkpoint.js';
import { countTranscript } from '../../src/tokens/breakdown.js';
import { corpusPath, hasCorpus } from '../helpers/corpus.js';
import { BUNDLED } from '../helpers/paths.js';
import { makeContext, run } from '../helpers/transcript-kit.js';

async function read(path: string): Promise<Transcript> {
  for await (const item of readInputs([path], { maxLineBytes: 64 * 1024 * 1024 })) if (item.kind === 'transcript') return item.transcript;
  throw new Error(`no transcript in ${path}`);
}

const SESSION = join(BUNDLED, 'claude-code', 'ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl');

describe('the protected tail as a budget (bundled Claude Code session)', () => {
  let session: Transcript;
  beforeAll(async () => {
    session = await read(SESSION);
  });

  it('keeps the last 10 messages and 10 results, starting at a call, not the whole last turn', () => {
    const m = session.messages;
    const last = lastUserRequestIndex(m);
    const range = protectedRange(m, { keepLast: 0 });
    // The session's last turn is long: the tail is much shorter than it, and starts inside it.
    expect(range.tailStart).toBeGreaterThan(last);
    expect(m.length - range.tailStart).toBeGreaterThanOrEqual(10);
    expect(m.slice(range.tailStart).filter((x) => x.role === 'tool').length).toBeGreaterThanOrEqual(10);
    expect(m[range.tailStart].role).toBe('assistant');
    expect(range.lastRequest).toBe(last);
    console.log(`[tail] ${m.length} messages, last request #${last}, tail from #${range.tailStart}`);
  });

  it('checkpoints the older part of the current turn after the last request, which stays verbatim and last', () => {
    const ctx = makeContext();
    const r = run(checkpoint, session, {}, ctx);
    const m = session.messages;
    const out = r.transcript.messages;
    const last = lastUserRequestIndex(m);
    const kept = lastUserRequestIndex(out);
    expect(out[kept]).toBe(m[last]);
    const cp = out[kept + 1];
    expect(cp.role).toBe('assistant');
    expect(contentText(cp.content as string)).toMatch(/^\[tcompact checkpoint of \d+ messages\] \(ref: [0-9a-f]{16}\)/);
    // Only the head, the request, the checkpoint and the tail remain; the tail is the input's, object for object.
    const tailStart = protectedRange(m, { keepLast: 0 }).tailStart;
    expect(out.slice(kept + 2)).toHaveLength(m.length - tailStart);
    out.slice(kept + 2).forEach((x, i) => expect(x).toBe(m[tailStart + i]));
    expect(findViolations(out)).toEqual([]);
    const before = countTranscript(session, ctx.tokenizer).total;
    const after = countTranscript(r.transcript, ctx.tokenizer).total;
    expect(after).toBeLessThan(before / 5);
    // Idempotent: the checkpoint is alone between the request and the tail.
    expect(run(checkpoint, r.transcript, {}, ctx).transcript).toBe(r.transcript);
    console.log(`[checkpoint in turn] ${before} -> ${after} tokens`);
  });
});

describe('the checkpoint keeps the trail (bundled Claude Code session)', () => {
  it('names every file touched, every distinct command, every unresolved error line and every request', async () => {
    const session = await read(SESSION);
    const out = run(checkpoint, session).transcript.messages;
    const text = contentText(out[lastUserRequestIndex(out) + 1].content as string);
    const span: Message[] = session.messages.slice(protectedRange(session.messages, { keepLast: 0 }).headEnd);
    const facts = extractFacts(span.slice(0, span.length - 20));
    expect(facts.files.length).toBeGreaterThan(5);
    // Paths under the session's working directory are written relative to it, and the note says so.
    const root = session.metadata?.cwd as string;
    expect(text).toContain(`File paths are relative to ${root}.`);
    for (const f of facts.files) expect(text).toContain(f.path.startsWith(`${root}/`) ? f.path.slice(root.length + 1) : f.path);
    expect(facts.commands.length).toBeGreaterThan(5);
    for (const c of facts.commands) expect(text).toContain(c.command.slice(0, 120));
    for (const c of facts.commands.filter((x) => x.lastFailure !== undefined)) expect(text).toContain(`FAILED \`${c.command.slice(0, 100)}`);
    for (const e of facts.errors.filter((x) => !x.resolved)) expect(text).toContain(e.message);
    expect(text).toContain('User requests, in order (long ones shortened):');
  });
});

describe('checkpointBudget', () => {
  const defaults = checkpoint.config.parse({});
  it('grows linearly with the span between a floor and a ceiling', () => {
    expect([defaults.charsPerToken, defaults.minChars, defaults.maxChars]).toEqual([0.2, 4000, 48_000]);
    expect(checkpointBudget(0, defaults)).toBe(4000);
    expect(checkpointBudget(20_000, defaults)).toBe(4000);
    expect(checkpointBudget(50_000, defaults)).toBe(10_000);
    expect(checkpointBudget(100_000, defaults)).toBe(20_000);
    expect(checkpointBudget(240_000, defaults)).toBe(48_000);
    expect(checkpointBudget(1_000_000, defaults)).toBe(48_000);
  });

  it('refuses a floor above the ceiling', () => {
    expect(checkpoint.config.safeParse({ minChars: 5000, maxChars: 4000 }).success).toBe(false);
  });
});

describe('the checkpoint on the spotter sessions (corpus)', () => {
  it.skipIf(!hasCorpus('checkpoint on the spotter sessions'))('stays within the budget for its span and compresses each session at least 7x', async () => {
    const dir = corpusPath('spotter', 'files', 'test', 'fixtures', 'transcripts');
    for (const id of ['fa812bfe-b295-4cca-9c2f-fdf01028cb46', '258c7280-ae70-4798-800f-63464d01a85d']) {
      const session = await read(join(dir, `${id}.jsonl`));
      const ctx = makeContext();
      const r = run(checkpoint, session, {}, ctx);
      const out = r.transcript.messages;
      const text = out.map((m) => contentText(m.content as string)).find((t) => t.startsWith('[tcompact checkpoint of ')) ?? '';
      expect(text.length).toBeGreaterThan(4000);
      expect(text.length).toBeLessThanOrEqual(48_000);
      expect(findViolations(out)).toEqual([]);
      const before = countTranscript(session, ctx.tokenizer).total;
      const after = countTranscript(r.transcript, ctx.tokenizer).total;
      expect(before / after).toBeGreaterThan(7);
      console.log(`[checkpoint ${id.slice(0, 8)}] ${before} -> ${after} tokens, ${text.length} characters`);
    }
  });
});
