import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readOpenHands } from '../../src/formats/openhands.js';
import type { InputItem } from '../../src/formats/types.js';
import { isAssistant, isTool } from '../../src/model/message.js';
import { parseTranscript } from '../../src/model/parse.js';
import { findViolations } from '../../src/model/validity.js';
import { OPENHANDS, READ, accountedUnits, collect, errorsOf, filesUnder, scratchFile, skippedOf, transcriptsOf } from './helpers.js';

interface Event {
  source: string;
  action?: string;
  observation?: string;
  tool_call_metadata?: { tool_call_id: string; function_name: string };
}

const files = filesUnder(OPENHANDS, /\.json$/);
const converted = new Map<string, InputItem[]>();
beforeAll(async () => {
  for (const f of files) converted.set(f, await collect(readOpenHands(f, READ)));
});

describe('OpenHands adapter on the 4 real event streams', () => {
  it('accounts for each of the 36 events once', () => {
    expect(files.map((f) => basename(f))).toEqual(['basic.json', 'basic_gui_mode.json', 'basic_interactions.json', 'wrong_initial_state.json']);
    let events = 0;
    for (const f of files) {
      const source = JSON.parse(readFileSync(f, 'utf8')) as Event[];
      events += source.length;
      expect(accountedUnits(converted.get(f)!), f).toBe(source.length);
      expect(errorsOf(converted.get(f)!)).toEqual([]);
    }
    expect(events).toBe(36);
  });

  it('turns tool actions into tool calls and their observations into tool results, with the recorded ids and names', () => {
    for (const f of files) {
      const source = JSON.parse(readFileSync(f, 'utf8')) as Event[];
      const [t] = transcriptsOf(converted.get(f)!);
      const calls = t.transcript.messages.flatMap((m) => (isAssistant(m) ? (m.tool_calls ?? []) : []));
      const actions = source.filter((e) => e.action && e.tool_call_metadata);
      expect(
        calls.map((c) => [c.id, c.function.name]),
        f,
      ).toEqual(actions.map((e) => [e.tool_call_metadata!.tool_call_id, e.tool_call_metadata!.function_name]));
      const observations = source.filter((e) => e.observation && e.tool_call_metadata);
      const results = t.transcript.messages.filter(isTool).filter((m) => m.content !== '[no result recorded]');
      expect(results.map((m) => [m.tool_call_id, m.name])).toEqual(
        observations.map((e) => [e.tool_call_metadata!.tool_call_id, e.tool_call_metadata!.function_name]),
      );
      expect(findViolations(t.transcript.messages)).toEqual([]);
      expect(parseTranscript(t.transcript).ok).toBe(true);
    }
  });

  it('gives `finish` tool calls, which OpenHands never answers, a documented no-result repair', () => {
    const finishes = files.map((f) => (JSON.parse(readFileSync(f, 'utf8')) as Event[]).filter((e) => e.action === 'finish' && e.tool_call_metadata).length);
    const filled = files.map((f) => transcriptsOf(converted.get(f)!)[0].repairs.missingResultFilled ?? 0);
    expect(filled).toEqual(finishes);
    expect(filled).toEqual([1, 0, 1, 1]);
  });

  it('keeps the conversation of basic_interactions exactly and skips state events by type', () => {
    const f = files.find((x) => x.endsWith('basic_interactions.json'))!;
    const [t] = transcriptsOf(converted.get(f)!);
    expect(t.transcript.messages.slice(0, 5)).toEqual([
      { role: 'user', content: "what's 1+1?" },
      { role: 'assistant', content: '1 + 1 equals 2.' },
      { role: 'user', content: "No, I mean by Goldbach's conjecture!" },
      expect.objectContaining({ role: 'assistant' }),
      { role: 'user', content: 'Finish please' },
    ]);
    const gui = files.find((x) => x.endsWith('basic_gui_mode.json'))!;
    const reasons: Record<string, number> = {};
    for (const s of skippedOf(converted.get(gui)!)) reasons[s.reason] = (reasons[s.reason] ?? 0) + 1;
    expect(reasons).toEqual({ 'record:observation/agent_state_changed': 4, 'record:action/change_agent_state': 1, 'record:observation/null': 3 });
  });

  it('adds the prefix and suffix OpenHands shows the model to command output', () => {
    const gui = files.find((x) => x.endsWith('basic_gui_mode.json'))!;
    const [t] = transcriptsOf(converted.get(gui)!);
    expect(t.transcript.messages[2]).toEqual({
      role: 'tool',
      tool_call_id: 'toolu_01W9Z8jBctr8X2frZV9p1RYs',
      name: 'execute_bash',
      content: '\n[The command completed with exit code 0.]',
    });
  });

  it('reports an event with neither action nor observation as E_SCHEMA naming the element', async () => {
    const file = scratchFile(
      'events.json',
      JSON.stringify([
        { id: 0, source: 'user', action: 'message', args: { content: 'hi' } },
        { id: 1, source: 'agent' },
      ]),
    );
    const items = await collect(readOpenHands(file, READ));
    expect(errorsOf(items).map((e) => e.record.message)).toEqual(['[1]: an OpenHands event needs a string "action" or "observation"']);
    expect(transcriptsOf(items)[0].transcript.messages).toEqual([{ role: 'user', content: 'hi' }]);
  });
});
