import { describe, expect, it } from 'vitest';
import type { ContentPart } from '../../src/model/content.js';
import { findViolations } from '../../src/model/validity.js';
import { refOf } from '../../src/refs/ref-store.js';
import { attachmentInfo } from '../../src/strategies/_attachment-info.js';
import { stripAttachments } from '../../src/strategies/strip-attachments.js';
import { assistant, call, expectIdempotent, makeContext, result, run, transcript, user, LAST_TURN } from '../helpers/transcript-kit.js';

const PNG = Buffer.alloc(3000, 7).toString('base64'); // 3000 bytes decoded
const PDF = Buffer.alloc(1001, 1).toString('base64'); // 1001 bytes decoded, padded
const image: ContentPart = { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } };
const pdf: ContentPart = { type: 'file', file: { filename: 'report.PDF', file_data: PDF } };
const audio: ContentPart = { type: 'input_audio', input_audio: { data: PDF, format: 'wav' } };
const remote: ContentPart = { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } };
const text = (t: string): ContentPart => ({ type: 'text', text: t });
const placeholder = (mime: string, bytes: number, part: ContentPart) => text(`[attachment: ${mime}, ${bytes} bytes] (ref: ${refOf(JSON.stringify(part))})`);

function session() {
  return transcript([
    user([text('see this'), image]),
    assistant('looking'),
    user([text('and these'), pdf, audio, remote]),
    assistant(null, { tool_calls: [call('s1', 'Screenshot')] }),
    result('s1', [image]),
    user([text('last'), image]),
    assistant('ok'),
  ]);
}

describe('strip-attachments', () => {
  it('accepts {} and rejects unknown options', () => {
    expect(stripAttachments.config.parse({})).toEqual({ keepLast: 0, keepMessages: 10, keepResults: 10 });
    expect(stripAttachments.config.safeParse({ minBytes: 1 }).success).toBe(false);
  });

  it('replaces inline payloads in the middle with their type and decoded size, keeping links and kept turns', () => {
    const before = session();
    const ctx = makeContext();
    const r = run(stripAttachments, before, { ...LAST_TURN }, ctx);
    const expected = session();
    expected.messages[2] = user([text('and these'), placeholder('application/pdf', 1001, pdf), placeholder('audio/wav', 1001, audio), remote]);
    expected.messages[4] = result('s1', [placeholder('image/png', 3000, image)]);
    expect(r.transcript).toEqual(expected);
    expect(r).toMatchObject({ messagesChanged: 2, messagesRemoved: 0, details: { attachmentsStripped: 3, attachmentBytes: 5002 } });
    expect(ctx.refs!.get(refOf(JSON.stringify(image)))).toBe(JSON.stringify(image));
    for (const i of [0, 1, 3, 5, 6]) expect(r.transcript.messages[i]).toBe(before.messages[i]);
    expect(findViolations(r.transcript.messages)).toEqual([]);
    expectIdempotent(stripAttachments, r.transcript, LAST_TURN);
  });

  it('never touches the last user request, even with keepLast 0', () => {
    const before = session();
    const r = run(stripAttachments, before, { ...LAST_TURN, keepLast: 0, keepFirst: 0 });
    expect(r.transcript.messages[0]).toEqual(user([text('see this'), placeholder('image/png', 3000, image)]));
    expect(r.transcript.messages[5]).toBe(before.messages[5]);
  });

  it('omits the ref without a side store', () => {
    const r = run(stripAttachments, session(), { ...LAST_TURN }, makeContext({ refs: false }));
    expect(r.transcript.messages[4]).toEqual(result('s1', [text('[attachment: image/png, 3000 bytes]')]));
  });

  it('reads type and size from data URLs, filenames and raw payloads', () => {
    expect(attachmentInfo({ type: 'image_url', image_url: { url: 'data:image/jpeg;base64,AAAA' } })).toEqual({ mime: 'image/jpeg', bytes: 3 });
    expect(attachmentInfo({ type: 'image_url', image_url: { url: 'data:,hello%20' } })).toEqual({ mime: 'text/plain', bytes: 8 });
    expect(attachmentInfo({ type: 'file', file: { filename: 'a.csv', file_data: 'data:;base64,AAA=' } })).toEqual({ mime: 'text/csv', bytes: 2 });
    expect(attachmentInfo({ type: 'file', file: { filename: 'notes', file_data: 'plain text, é' } })).toEqual({ mime: 'application/octet-stream', bytes: 14 });
    expect(attachmentInfo({ type: 'file', file: { file_id: 'file-123' } })).toBeUndefined();
    expect(attachmentInfo(remote as never)).toBeUndefined();
  });
});
