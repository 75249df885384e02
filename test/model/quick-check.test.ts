import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { knownMessageSchemas } from '../../src/model/message.js';
import { quickCheckEnvelope, quickCheckMessage } from '../../src/model/quick-check.js';
import { transcriptEnvelopeSchema } from '../../src/model/transcript.js';
import { realArchiveLines } from '../pipeline/helpers.js';

/** Values a field may take: the right type, the wrong type, and the edge cases (empty, null, nested). */
const scalar = fc.oneof(fc.constant(''), fc.string(), fc.constant(null), fc.boolean(), fc.integer(), fc.constant(undefined));
const partType = fc.constantFrom('text', 'image_url', 'file', 'input_audio', 'refusal', 'other', 1);
const inner = fc.dictionary(fc.constantFrom('url', 'detail', 'file_data', 'file_id', 'filename', 'data', 'format'), scalar);
const part = fc.record(
  { type: partType, text: scalar, refusal: scalar, image_url: fc.oneof(inner, scalar), file: fc.oneof(inner, scalar), input_audio: fc.oneof(inner, scalar) },
  { requiredKeys: [] },
);
const content = fc.oneof(scalar, fc.array(fc.oneof(part, scalar), { maxLength: 3 }));
const toolCall = fc.oneof(
  scalar,
  fc.record(
    {
      id: scalar,
      type: fc.constantFrom('function', 'other'),
      function: fc.oneof(scalar, fc.record({ name: scalar, arguments: scalar }, { requiredKeys: [] })),
    },
    { requiredKeys: [] },
  ),
);
const message = fc.record(
  {
    role: fc.constantFrom('system', 'developer', 'user', 'assistant', 'tool'),
    content,
    name: scalar,
    tool_calls: fc.oneof(scalar, fc.array(toolCall, { maxLength: 3 })),
    reasoning_content: scalar,
    refusal: scalar,
    tool_call_id: scalar,
    is_error: scalar,
    timestamp: scalar,
    model: scalar,
    usage: fc.oneof(scalar, fc.object()),
    is_compact_summary: scalar,
    is_meta: scalar,
  },
  { requiredKeys: ['role'] },
);
const toolDef = fc.record(
  {
    type: fc.constantFrom('function', 'x'),
    function: fc.oneof(scalar, fc.record({ name: scalar, description: scalar, parameters: fc.oneof(scalar, fc.object()) }, { requiredKeys: [] })),
  },
  { requiredKeys: [] },
);
const envelope = fc.record(
  {
    id: scalar,
    messages: fc.oneof(scalar, fc.array(fc.oneof(message, scalar), { maxLength: 3 })),
    tools: fc.oneof(scalar, fc.array(toolDef, { maxLength: 2 })),
    metadata: fc.oneof(scalar, fc.object()),
  },
  { requiredKeys: [] },
);

/** JSON has no undefined: a generated key whose value is undefined is a missing key, as JSON.parse would give it. */
const asJson = (v: unknown): unknown => JSON.parse(JSON.stringify(v) ?? 'null');

describe('quick checks of the transcript schemas', () => {
  it('never accept a message its zod schema rejects, and accept every valid one the generator makes of the right types', () => {
    let accepted = 0;
    fc.assert(
      fc.property(message, (raw) => {
        const m = asJson(raw) as Record<string, unknown> & { role: keyof ReturnType<typeof knownMessageSchemas> };
        const quick = quickCheckMessage(m);
        const zod = knownMessageSchemas()[m.role].safeParse(m).success;
        if (quick) accepted++;
        expect(quick).toBe(zod);
      }),
      { numRuns: 5000, seed: 22 },
    );
    expect(accepted).toBeGreaterThan(100);
  });

  it('never accept an envelope its zod schema rejects', () => {
    fc.assert(
      fc.property(envelope, (raw) => {
        const v = asJson(raw);
        expect(quickCheckEnvelope(v)).toBe(transcriptEnvelopeSchema().safeParse(v).success);
      }),
      { numRuns: 5000, seed: 22 },
    );
  });

  it('accept every transcript and message of the bundled real data, so zod never runs on it', async () => {
    for (const line of await realArchiveLines()) {
      const t = JSON.parse(line) as { messages: Record<string, unknown>[] };
      expect(quickCheckEnvelope(t)).toBe(true);
      for (const m of t.messages) if (String(m.role) in knownMessageSchemas()) expect(quickCheckMessage(m)).toBe(true);
    }
  });
});
