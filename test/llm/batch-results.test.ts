import { describe, expect, it } from 'vitest';
import { type BatchResult, parseResults } from '../../src/llm/batch-results.js';

const line = (id: string, status: number, body: unknown) => JSON.stringify({ custom_id: id, response: { status_code: status, body } });

function parse(...lines: string[]): Map<string, BatchResult> {
  const into = new Map<string, BatchResult>();
  parseResults(lines.join('\n'), 0, into);
  return into;
}

describe("a batch's error lines are classified as the same answers online", () => {
  it('by status, by the error code the body gives, and by the words of a context-length refusal', () => {
    const results = parse(
      line('quota', 429, { error: { code: 'insufficient_quota', message: 'You exceeded your current quota' } }),
      line('limited', 429, { error: { message: 'Rate limit reached' } }),
      line('long-by-code', 400, { error: { code: 'context_length_exceeded', message: 'Too many input items' } }),
      line('long-by-text', 400, { error: { message: "This model's maximum context length is 128000 tokens" } }),
      line('bad', 400, { error: { message: 'invalid temperature' } }),
      line('down', 503, null),
      line('empty', 500, { error: { message: '' } }),
    );
    const failure = (id: string) => {
      const r = results.get(id);
      if (!r || r.ok) throw new Error(`${id}: expected a failure`);
      return { code: r.failure.code, message: r.failure.message };
    };
    expect(failure('quota')).toEqual({ code: 'quota_exceeded', message: '429 You exceeded your current quota' });
    expect(failure('limited')).toEqual({ code: 'rate_limited', message: '429 Rate limit reached' });
    expect(failure('long-by-code').code).toBe('context_length_exceeded');
    expect(failure('long-by-text').code).toBe('context_length_exceeded');
    expect(failure('bad')).toEqual({ code: 'bad_request', message: '400 invalid temperature' });
    expect(failure('down')).toEqual({ code: 'server_error', message: '503 HTTP 503' });
    expect(failure('empty')).toEqual({ code: 'server_error', message: '500 status code (no body)' });
  });
});
