import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/model/message.js';
import { trimText, trimmedOutput } from '../../src/replay/sent-tool-output.js';

// Codex's middle truncation (openai/codex codex-rs/utils/output-truncation and codex-rs/utils/string): the budget with a
// 20% allowance, its first and last halves kept on character boundaries, a marker between.
describe('tool output as Codex sends it', () => {
  it('keeps the first and last halves of a token budget (4 bytes a token) and says how much was cut', () => {
    const text = 'a'.repeat(100) + 'b'.repeat(100);
    expect(trimText(text, 'tokens', 10)).toBe(`${'a'.repeat(20)}…40 tokens truncated…${'b'.repeat(20)}`);
    expect(trimText(text, 'tokens', 50)).toBe(text);
  });

  it('cuts a byte budget on character boundaries and counts the characters removed', () => {
    const text = 'é'.repeat(50); // 2 bytes each
    const out = trimText(text, 'bytes', 21);
    expect(out).toMatch(/^é{5}…40 chars truncated…é{5}$/);
  });

  it("applies the tool message's policy with the 20% allowance; other messages pass as they are", () => {
    const tool = { role: 'tool', tool_call_id: 'c', content: 'x'.repeat(10_000), truncation_policy: { mode: 'tokens', limit: 1000 } } as Message;
    const sent = trimmedOutput(tool);
    expect(sent).not.toBe(tool);
    expect(Buffer.byteLength(sent.content as string)).toBeLessThan(1200 * 4 + 40);
    expect(sent.content).toContain('…1300 tokens truncated…');
    const small = { ...tool, content: 'ok' } as Message;
    expect(trimmedOutput(small)).toBe(small);
    const user = { role: 'user', content: 'x'.repeat(10_000), truncation_policy: { mode: 'tokens', limit: 10 } } as Message;
    expect(trimmedOutput(user)).toBe(user);
  });

  it('shares one budget among text parts, in order, and keeps images', () => {
    const tool = {
      role: 'tool',
      tool_call_id: 'c',
      content: [
        { type: 'text', text: 'a'.repeat(40) },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        { type: 'text', text: 'b'.repeat(400) },
      ],
      truncation_policy: { mode: 'tokens', limit: 25 },
    } as Message;
    const parts = trimmedOutput(tool).content as { type: string; text?: string }[];
    expect(parts.map((p) => p.type)).toEqual(['text', 'image_url', 'text']);
    expect(parts[0].text).toBe('a'.repeat(40));
    expect(parts[2].text).toMatch(/^b{40}…80 tokens truncated…b{40}$/);
  });
});
