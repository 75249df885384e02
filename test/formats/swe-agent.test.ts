import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { readSweAgent } from '../../src/formats/swe-agent.js';
import type { InputItem } from '../../src/formats/types.js';
import { isAssistant, isTool } from '../../src/model/message.js';
import { parseTranscript } from '../../src/model/parse.js';
import { findViolations } from '../../src/model/validity.js';
import { READ, SWE_AGENT, collect, errorsOf, filesUnder, scratchFile, transcriptsOf } from './helpers.js';
import { hasCorpus } from '../helpers/corpus.js';

interface Traj {
  history: { role: string; content: string; tool_calls?: { id: string }[]; tool_call_ids?: string[]; thought?: string }[];
  trajectory?: unknown[];
  info?: unknown;
}

const REAL = 'SWE-agent adapter on the 22 real .traj files';
const files = hasCorpus(REAL) ? filesUnder(SWE_AGENT, /\.traj$/) : [];
const converted = new Map<string, InputItem[]>();
beforeAll(async () => {
  for (const f of files) converted.set(f, await collect(readSweAgent(f, READ)));
});

describe.skipIf(files.length === 0)(REAL, () => {
  it('converts every history message: 489 messages, 44 tool calls, 44 tool results, valid after repairs', () => {
    expect(files).toHaveLength(22);
    let messages = 0;
    let calls = 0;
    let results = 0;
    for (const f of files) {
      const items = converted.get(f)!;
      expect(errorsOf(items), f).toEqual([]);
      const [t] = transcriptsOf(items);
      const source = JSON.parse(readFileSync(f, 'utf8')) as Traj;
      expect(
        t.transcript.messages.map((m) => m.role),
        f,
      ).toEqual(source.history.map((h) => h.role));
      expect(t.transcript.messages.map((m) => m.content)).toEqual(source.history.map((h) => h.content));
      expect(findViolations(t.transcript.messages)).toEqual([]);
      expect(parseTranscript(t.transcript).ok).toBe(true);
      expect(t.lines).toBe(1);
      messages += t.transcript.messages.length;
      for (const m of t.transcript.messages) {
        if (isAssistant(m)) calls += m.tool_calls?.length ?? 0;
        if (isTool(m)) results++;
      }
    }
    expect({ messages, calls, results }).toEqual({ messages: 489, calls: 44, results: 44 });
  });

  it('keeps info in metadata, counts the trajectory steps it does not convert, and gives each run a distinct id', () => {
    const ids = new Set<string>();
    for (const f of files) {
      const [t] = transcriptsOf(converted.get(f)!);
      const source = JSON.parse(readFileSync(f, 'utf8')) as Traj;
      expect(t.transcript.metadata?.info).toEqual(source.info);
      expect(t.transcript.metadata?.trajectorySteps).toBe(source.trajectory?.length);
      ids.add(t.transcript.id);
    }
    expect(ids.size).toBe(22);
    expect(ids).toContain('replay__marshmallow-code__marshmallow-1867__function_calling__install-1/marshmallow-code__marshmallow-1867');
  });

  it('maps tool_call_ids to tool_call_id and renames the call ids the replays reuse (14 in 3 files)', () => {
    let renamed = 0;
    for (const f of files) {
      const [t] = transcriptsOf(converted.get(f)!);
      renamed += t.repairs.duplicateCallIdRenamed ?? 0;
      expect(Object.keys(t.repairs).filter((k) => k !== 'duplicateCallIdRenamed')).toEqual([]);
    }
    expect(renamed).toBe(14);
    const simple = files.find((f) => f.endsWith('function_calling_simple.traj'))!;
    const [t] = transcriptsOf(converted.get(simple)!);
    expect(t.transcript.messages[3]).toMatchObject({ role: 'tool', tool_call_id: 'call_PbWErNIge3YTrli3fiVvmIid' });
  });

  it('drops `thought` only where the content already holds it', () => {
    for (const f of files) {
      const [t] = transcriptsOf(converted.get(f)!);
      const source = JSON.parse(readFileSync(f, 'utf8')) as Traj;
      source.history.forEach((h, i) => {
        const kept = (t.transcript.messages[i] as { thought?: string }).thought;
        if (typeof h.thought === 'string' && h.content.includes(h.thought)) expect(kept).toBeUndefined();
        else expect(kept).toBe(h.thought);
      });
    }
  });
});

describe('SWE-agent adapter on hand-made input', () => {
  it('reports a .traj without history as E_SCHEMA', async () => {
    const items = await collect(readSweAgent(scratchFile('empty.traj', '{"info": {}}'), READ));
    expect(items.map((i) => (i.kind === 'error' ? [i.record.code, i.record.message] : i.kind))).toEqual([
      ['E_SCHEMA', 'history: expected an array (a SWE-agent .traj object)'],
    ]);
  });
});
