import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { readMessages } from '../../src/formats/messages.js';
import type { InputItem } from '../../src/formats/types.js';
import { isAssistant, isTool, type Message } from '../../src/model/message.js';
import { parseTranscript } from '../../src/model/parse.js';
import { findViolations } from '../../src/model/validity.js';
import { READ, TAU_BENCH, accountedUnits, collect, errorsOf, scratchFile, transcriptsOf } from './helpers.js';

interface Run {
  task_id: number;
  trial: number;
  reward: number;
  info: unknown;
  traj: (Message & { tool_calls?: { id: string }[] })[];
}

const runs = JSON.parse(readFileSync(TAU_BENCH, 'utf8')) as Run[];
let items: InputItem[];
beforeAll(async () => {
  items = await collect(readMessages(TAU_BENCH, READ));
});

describe('messages adapter on tau-bench (one JSON array of 200 runs, streamed)', () => {
  it('gives 200 valid transcripts with 5,308 messages and 1,164 tool calls and results, as in the source', () => {
    const ts = transcriptsOf(items);
    expect(errorsOf(items)).toEqual([]);
    expect(ts).toHaveLength(200);
    const messages = ts.flatMap((t) => t.transcript.messages);
    expect(messages).toHaveLength(runs.reduce((n, r) => n + r.traj.length, 0));
    expect(messages).toHaveLength(5308);
    expect(messages.filter(isAssistant).reduce((n, m) => n + (m.tool_calls?.length ?? 0), 0)).toBe(1164);
    expect(messages.filter(isTool)).toHaveLength(1164);
    for (const t of ts) {
      expect(findViolations(t.transcript.messages), t.transcript.id).toEqual([]);
      expect(parseTranscript(t.transcript).ok).toBe(true);
    }
    expect(accountedUnits(items)).toBe(200);
  });

  it('names runs by task and trial and keeps reward and info in metadata, in source order', () => {
    const ts = transcriptsOf(items);
    expect(ts.map((t) => t.transcript.id)).toEqual(runs.map((r) => `gpt-4o-airline#task-${r.task_id}-trial-${r.trial}`));
    expect(ts.map((t) => t.record)).toEqual(runs.map((_, i) => i));
    expect(ts[7].transcript.metadata).toMatchObject({ task_id: runs[7].task_id, trial: runs[7].trial, reward: runs[7].reward, info: runs[7].info });
  });

  it('renames the 73 reused tool-call ids, each with the result that answers it, and changes nothing else', () => {
    const ts = transcriptsOf(items);
    expect(ts.reduce((n, t) => n + (t.repairs.duplicateCallIdRenamed ?? 0), 0)).toBe(73);
    const reused = runs.reduce((n, r) => {
      const ids = r.traj.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id));
      return n + ids.length - new Set(ids).size;
    }, 0);
    expect(reused).toBe(73);
    ts.forEach((t, i) => {
      const source = runs[i].traj;
      t.transcript.messages.forEach((m, k) => {
        const s = source[k];
        expect(m.role).toBe(s.role);
        expect(m.content).toEqual(s.content);
        if (isTool(m)) expect(m.tool_call_id.replace(/~\d+$/, '')).toBe((s as { tool_call_id: string }).tool_call_id);
      });
    });
    // Task 0 reuses call_oIHazX6yQrB8hUwl4cRilFKj for a later `calculate` call: the second use and its result are renamed together.
    const t0 = ts[0].transcript.messages;
    expect(t0[16]).toMatchObject({ tool_calls: [{ id: 'call_oIHazX6yQrB8hUwl4cRilFKj~2', function: { name: 'calculate' } }] });
    expect(t0[17]).toMatchObject({ role: 'tool', tool_call_id: 'call_oIHazX6yQrB8hUwl4cRilFKj~2', content: '255.0' });
  });
});

describe('messages adapter on hand-made inputs', () => {
  it('reads JSONL of {messages} and bare arrays, with ids from the record or the line number', async () => {
    const file = scratchFile(
      'runs.jsonl',
      [
        JSON.stringify({ id: 'keep-me', messages: [{ role: 'user', content: 'hi' }], score: 1 }),
        '',
        JSON.stringify([
          { role: 'user', content: 'a' },
          { role: 'assistant', content: 'b' },
        ]),
      ].join('\n'),
    );
    const got = await collect(readMessages(file, READ));
    expect(got.map((i) => (i.kind === 'transcript' ? i.transcript.id : i.kind))).toEqual(['keep-me', 'skipped', 'runs#3']);
    expect(transcriptsOf(got)[0].transcript.metadata).toEqual({ source: { format: 'messages', file }, score: 1 });
  });

  it('reads a JSON file that is one array of messages as one transcript', async () => {
    const file = scratchFile(
      'chat.json',
      JSON.stringify([
        { role: 'system', content: 's' },
        { role: 'user', content: 'u' },
      ]),
    );
    const got = transcriptsOf(await collect(readMessages(file, READ)));
    expect(got.map((t) => [t.transcript.id, t.transcript.messages.length, t.lines])).toEqual([['chat', 2, 2]]);
  });

  it('reports a record that fails the schema as E_SCHEMA naming the element and the path, and goes on', async () => {
    const file = scratchFile(
      'bad.json',
      JSON.stringify([
        { traj: [{ role: 'user', content: 'ok' }] },
        {
          traj: [
            { role: 'user', content: 'ok' },
            { role: 'tool', content: 'no id' },
          ],
        },
        { nothing: true },
        { traj: [{ role: 'assistant', content: 'fine' }] },
      ]),
    );
    const got = await collect(readMessages(file, READ));
    expect(got.map((i) => (i.kind === 'error' ? [i.record.code, i.record.message] : i.kind))).toEqual([
      'transcript',
      ['E_SCHEMA', '[1]: messages[1].tool_call_id: Invalid input: expected string, received undefined'],
      ['E_SCHEMA', '[2]: messages: expected an array (or a "traj" array)'],
      'transcript',
    ]);
  });

  it('reports a JSON syntax error as E_JSON after the elements before it', async () => {
    const file = scratchFile('cut.json', `[{"traj":[{"role":"user","content":"a"}]}, {"traj": [`);
    const got = await collect(readMessages(file, READ));
    expect(got.map((i) => i.kind)).toEqual(['transcript', 'error']);
    expect(errorsOf(got)[0].record.code).toBe('E_JSON');
  });

  it('reports invalid UTF-8 in a JSON file as E_UTF8, never replacing the bytes', async () => {
    const file = scratchFile('latin1.json', Buffer.concat([Buffer.from('[{"traj":[{"role":"user","content":"caf'), Buffer.from([0xe9]), Buffer.from('"}]}]')]));
    const got = await collect(readMessages(file, READ));
    expect(got.map((i) => (i.kind === 'error' ? i.record.code : i.kind))).toEqual(['E_UTF8']);
  });
});
