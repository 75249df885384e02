import { describe, expect, it } from 'vitest';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { encode as encodeCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { createTokenizer, getTokenizer } from '../../src/tokens/tokenizer.js';
import {
  addBreakdown,
  type Breakdown,
  CATEGORIES,
  countMessage,
  countTranscript,
  emptyBreakdown,
  MESSAGE_OVERHEAD_TOKENS,
  totalOf,
} from '../../src/tokens/breakdown.js';
import type { Transcript } from '../../src/model/transcript.js';
import { MAX_IMAGE_TOKENS } from '../../src/tokens/image-tokens.js';

describe('tokenizer', () => {
  it('counts o200k_base tokens exactly as the encoder does on known strings', () => {
    const tok = getTokenizer('o200k_base');
    expect(tok.count('hello world')).toBe(2);
    expect(tok.count('')).toBe(0);
    const long = 'The quick brown fox jumps over the lazy dog. '.repeat(20);
    expect(tok.count(long)).toBe(encode(long).length);
    // The cached path returns the same figure the second time.
    expect(tok.count(long)).toBe(encode(long).length);
  });

  it('gives each cached text its own count when texts share a length, before and after the cache starts over', () => {
    const tok = createTokenizer('o200k_base');
    // Same length (80 characters), different counts: a cache that matched on length alone would mix them up.
    const words = 'word '.repeat(16);
    const letters = 'abcdefghij'.repeat(8);
    const digits = '1234 6789 '.repeat(8);
    const texts = [words, letters, digits];
    expect(new Set(texts.map((t) => t.length))).toEqual(new Set([80]));
    expect(new Set(texts.map((t) => encode(t).length)).size).toBe(3);
    for (let round = 0; round < 3; round++) {
      // An equal text built anew (another string) is found; a text 5M characters long makes the cache start over.
      for (const t of texts) expect(tok.count(t.slice(0, 40) + t.slice(40))).toBe(encode(t).length);
      if (round === 1) expect(tok.count('many words '.repeat(500_000))).toBe(1_000_001); // 'many', ' words', and the last space
    }
  });

  it('distinguishes cl100k_base from o200k_base', () => {
    const text = 'def compact(transcript):\n    return [m for m in transcript if m.role != "tool"]\n'.repeat(3);
    expect(getTokenizer('cl100k_base').count(text)).toBe(encodeCl100k(text).length);
    expect(getTokenizer('o200k_base').count(text)).toBe(encode(text).length);
  });

  it('counts special-token strings in a transcript as ordinary text instead of throwing', () => {
    // Transcripts about tokenizers quote `<|endoftext|>`; the library's default refuses such text.
    const short = 'a <|endoftext|> b';
    const long = `${'The model stops at <|endoftext|> or <|im_end|>. '.repeat(4)}`;
    for (const name of ['o200k_base', 'cl100k_base'] as const) {
      const ordinary = name === 'o200k_base' ? encode : encodeCl100k;
      expect(() => ordinary(short)).toThrow(/special token/i);
      const options = { disallowedSpecial: new Set<string>() };
      expect(getTokenizer(name).count(short)).toBe(ordinary(short, options).length);
      expect(getTokenizer(name).count(long)).toBe(ordinary(long, options).length);
      expect(createTokenizer(name, { cache: false }).count(long)).toBe(ordinary(long, options).length);
    }
  });

  it('uses chars/4 only for the heuristic tokenizer', () => {
    expect(getTokenizer('heuristic').count('abcdefghi')).toBe(3);
  });
});

describe('countTranscript', () => {
  const tok = getTokenizer('o200k_base');
  const t: Transcript = {
    id: 't1',
    messages: [
      { role: 'system', content: 'You are a helpful agent.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Read the file.' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAABBBBCCCC' } },
        ],
      },
      {
        role: 'assistant',
        content: null,
        reasoning_content: 'I should call the read tool.',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'export const a = 1;' },
      { role: 'assistant', content: 'Done.' },
      { role: 'narrator', content: 'an unknown role' },
    ],
    tools: [{ type: 'function', function: { name: 'read_file', parameters: { type: 'object' } } }],
  };

  it('puts every token in its category and adds up to the total', () => {
    const { total, byCategory: b } = countTranscript(t, tok);
    const n = (s: string) => encode(s).length;
    expect(b.system).toBe(n('You are a helpful agent.'));
    expect(b.user).toBe(n('Read the file.'));
    // An image whose payload has no readable header costs the most one image costs (see image-tokens.test.ts).
    expect(b.attachments).toBe(MAX_IMAGE_TOKENS);
    expect(b.reasoning).toBe(n('I should call the read tool.'));
    expect(b.toolCalls).toBe(n('read_file') + n('{"path":"a.ts"}'));
    expect(b.toolResults).toBe(n('export const a = 1;'));
    expect(b.assistant).toBe(n('Done.'));
    expect(b.other).toBe(n(JSON.stringify(t.messages[5])));
    expect(b.tools).toBe(n(JSON.stringify(t.tools)));
    expect(b.overhead).toBe(6 * MESSAGE_OVERHEAD_TOKENS);
    expect(total).toBe(totalOf(b));
  });

  it('counts with the heuristic what each message counts alone, category by category', () => {
    const heuristic = getTokenizer('heuristic');
    const alone = (x: Transcript): Breakdown => {
      const b = emptyBreakdown();
      for (const m of x.messages) addBreakdown(b, countMessage(m, heuristic));
      b.tools = heuristic.count(JSON.stringify(x.tools));
      return b;
    };
    expect(countTranscript(t, heuristic).byCategory).toEqual(alone(t));
    expect(countTranscript(t, heuristic).total).toBe(totalOf(alone(t)));
    const longer = { ...t, messages: t.messages.map((m) => (typeof m.content === 'string' ? { ...m, content: `${m.content} and more` } : m)) };
    expect(countTranscript(longer, heuristic).byCategory).toEqual(alone(longer));
    expect(countTranscript(longer, heuristic).total).toBeGreaterThan(countTranscript(t, heuristic).total);
  });

  it('counts new tool definitions afresh, not as the ones counted before', () => {
    const before = countTranscript(t, tok).byCategory.tools;
    const tools = [...t.tools!, { type: 'function' as const, function: { name: 'write_file', parameters: { type: 'object' } } }];
    const after = countTranscript({ ...t, tools }, tok).byCategory.tools;
    expect(after).toBe(encode(JSON.stringify(tools)).length);
    expect(after).toBeGreaterThan(before);
    expect(countTranscript(t, tok).byCategory.tools).toBe(before);
  });

  it('gives zero, not NaN, for a transcript with no messages', () => {
    const { total } = countTranscript({ id: 'empty', messages: [] }, tok);
    expect(total).toBe(0);
  });
});

describe('breakdown arithmetic', () => {
  // A distinct power of two per category: a category left out of a sum shows as a missing bit.
  const distinct = (): Breakdown => {
    const b = emptyBreakdown();
    CATEGORIES.forEach((c, i) => (b[c] = 2 ** i));
    return b;
  };

  it('totals every category', () => {
    expect(totalOf(distinct())).toBe(2 ** CATEGORIES.length - 1);
  });

  it('adds every category into the first breakdown', () => {
    const sum = addBreakdown(distinct(), distinct());
    for (const [i, c] of CATEGORIES.entries()) expect(sum[c]).toBe(2 ** (i + 1));
  });
});
