import { describe, expect, it } from 'vitest';
import { readAnthropic } from '../../src/formats/anthropic.js';
import { toAnthropic } from '../../src/formats/anthropic-writer.js';
import { readInputs } from '../../src/formats/read-inputs.js';
import type { Transcript } from '../../src/model/transcript.js';
import { findViolations } from '../../src/model/validity.js';
import { CODEX_FIXTURES, OPENHANDS, READ, SESSION_SHARE, SPOTTER, SWE_AGENT, TAU_BENCH, collect, errorsOf, scratchFile, transcriptsOf } from './helpers.js';
import { hasCorpus } from '../helpers/corpus.js';

async function roundTrip(inputs: string[], name: string): Promise<{ before: Transcript[]; after: Transcript[] }> {
  const before = transcriptsOf(await collect(readInputs(inputs, READ))).map((t) => t.transcript);
  const file = scratchFile(name, before.map((t) => `${JSON.stringify(toAnthropic(t))}\n`).join(''));
  const items = await collect(readAnthropic(file, READ));
  expect(errorsOf(items)).toEqual([]);
  return { before, after: transcriptsOf(items).map((t) => t.transcript) };
}

describe('Anthropic round trip: canonical -> anthropic -> canonical', () => {
  it.skipIf(!hasCorpus('Anthropic round trip on the shared corpus'))(
    'is exact for every real Claude Code session (messages, reasoning, tool results with is_error, usage, metadata)',
    async () => {
      const { before, after } = await roundTrip([SPOTTER, SESSION_SHARE], 'claude-code.anthropic.jsonl');
      expect(before).toHaveLength(28);
      expect(after).toEqual(before);
    },
  );

  it.skipIf(!hasCorpus('Anthropic round trip on the shared corpus'))(
    'is exact for tau-bench, SWE-agent, OpenHands and Codex transcripts (system prompts, tool names, null contents)',
    async () => {
      const { before, after } = await roundTrip([TAU_BENCH, SWE_AGENT, OPENHANDS, CODEX_FIXTURES], 'others.anthropic.jsonl');
      expect(before).toHaveLength(200 + 22 + 4 + 4);
      expect(after).toEqual(before);
    },
  );
});

describe('Anthropic writer', () => {
  it('writes the Messages API shape: top-level system, thinking/text/tool_use blocks, tool_result blocks in one user turn', () => {
    const t: Transcript = {
      id: 't1',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'List and count.' },
        {
          role: 'assistant',
          content: 'Running both.',
          reasoning_content: 'Two calls in parallel.',
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'ls', arguments: '{"path":"."}' } },
            { id: 'c2', type: 'function', function: { name: 'wc', arguments: '{ "path": "a.txt" }' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'a.txt' },
        { role: 'tool', tool_call_id: 'c2', content: 'no such file', is_error: true, name: 'wc' },
        { role: 'developer', content: 'Mid-conversation instruction.' },
      ],
      tools: [{ type: 'function', function: { name: 'ls', description: 'list', parameters: { type: 'object', properties: { path: { type: 'string' } } } } }],
    };
    expect(toAnthropic(t)).toEqual({
      id: 't1',
      system: 'Be brief.',
      messages: [
        { role: 'user', content: 'List and count.' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Two calls in parallel.' },
            { type: 'text', text: 'Running both.' },
            { type: 'tool_use', id: 'c1', name: 'ls', input: { path: '.' } },
            { type: 'tool_use', id: 'c2', name: 'wc', input: { path: 'a.txt' }, raw_arguments: '{ "path": "a.txt" }' },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'c1', content: 'a.txt' },
            { type: 'tool_result', tool_use_id: 'c2', content: 'no such file', is_error: true, name: 'wc' },
          ],
        },
        { role: 'user', content: 'Mid-conversation instruction.', original_role: 'developer' },
      ],
      tools: [{ name: 'ls', description: 'list', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }],
    });
  });
});

describe('Anthropic reader', () => {
  it('maps a Messages API conversation to canonical messages', async () => {
    const conversation = {
      system: [{ type: 'text', text: 'You are terse.' }],
      model: 'claude-sonnet-4-5',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in the image?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Look first.', signature: 'sig' },
            { type: 'thinking', thinking: 'Then answer.', signature: 'sig' },
            { type: 'tool_use', id: 'tu1', name: 'zoom', input: { factor: 2 } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'tu1', content: [{ type: 'text', text: 'a cat' }], is_error: false },
            { type: 'text', text: 'and?' },
          ],
        },
        { role: 'assistant', content: 'A cat.' },
      ],
    };
    const file = scratchFile('conversation.json', JSON.stringify(conversation));
    const [t] = transcriptsOf(await collect(readAnthropic(file, READ)));
    expect(t.transcript).toEqual({
      id: 'conversation',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'You are terse.' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in the image?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          reasoning_content: 'Look first.\n\nThen answer.',
          tool_calls: [{ id: 'tu1', type: 'function', function: { name: 'zoom', arguments: '{"factor":2}' } }],
        },
        { role: 'tool', tool_call_id: 'tu1', content: [{ type: 'text', text: 'a cat' }], is_error: false },
        { role: 'user', content: [{ type: 'text', text: 'and?' }] },
        { role: 'assistant', content: 'A cat.' },
      ],
      metadata: { source: { format: 'anthropic', file } },
      model: 'claude-sonnet-4-5',
    });
    expect(findViolations(t.transcript.messages)).toEqual([]);
  });

  it('reports a conversation without messages as E_SCHEMA on its line', async () => {
    const file = scratchFile(
      'conversations.jsonl',
      `${JSON.stringify({ id: 'a', messages: [{ role: 'user', content: 'hi' }] })}\n${JSON.stringify({ id: 'b', system: 'x' })}\n`,
    );
    const items = await collect(readAnthropic(file, READ));
    expect(items.map((i) => (i.kind === 'error' ? [i.record.line, i.record.code, i.record.message] : i.kind))).toEqual([
      'transcript',
      [2, 'E_SCHEMA', 'messages: expected an array'],
    ]);
  });
});
