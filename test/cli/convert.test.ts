import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { parseTranscript } from '../../src/model/parse.js';
import { findViolations } from '../../src/model/validity.js';
import { corpusPath, hasCorpus } from '../helpers/corpus.js';
import { BUNDLED } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp-dir.js';

const SPOTTER_SHORT = join(BUNDLED, 'claude-code', 'short.jsonl');
const SESSION_SHARE = corpusPath('session-share', 'files', 'samples', 'claude-code-projects');
const OPENHANDS = join(BUNDLED, 'openhands');

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await main(args, { stdout, stderr });
  return { code, stdout: out, stderr: err };
}

const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '');

describe('tcompact convert', () => {
  it.skipIf(!hasCorpus('tcompact convert on session-share'))('writes the canonical archive and an empty errors file, prints the summary, exits 0', async () => {
    const dir = tempDir('convert');
    const out = join(dir, 'out.jsonl');
    const r = await run(['convert', SESSION_SHARE, OPENHANDS, '--out', out]);
    expect(r.code).toBe(0);
    const archive = lines(out).map((l) => JSON.parse(l) as unknown);
    expect(archive).toHaveLength(8 + 4);
    for (const t of archive) {
      const parsed = parseTranscript(t);
      if (!parsed.ok) throw new Error(parsed.error.message);
      expect(findViolations(parsed.value.transcript.messages)).toEqual([]);
    }
    expect(readFileSync(join(dir, 'out.errors.jsonl'), 'utf8')).toBe('');
    expect(r.stdout).toContain(`Wrote 12 transcripts to ${out}`);
    expect(r.stdout).toMatch(/Lines: 172 read = \d+ converted \+ 0 failed \+ \d+ skipped/);
    expect(r.stdout).toMatch(/missingResultFilled\s+3/);
    expect(r.stdout).toMatch(/record:progress\s+17/);
    expect(readdirSync(dir).sort()).toEqual(['out.errors.jsonl', 'out.jsonl']); // no temporary file left behind
  });

  it('writes errors next to the output with file, line, byte offset, code and message, and exits 1', async () => {
    const dir = tempDir('convert');
    const source = readFileSync(SPOTTER_SHORT, 'utf8').split('\n');
    source[7] = '{"type": "assistant", "message": ';
    const input = join(dir, 'session.jsonl');
    writeFileSync(input, source.join('\n'));
    const out = join(dir, 'converted.jsonl');
    const r = await run(['convert', input, '--out', out, '--json']);
    expect(r.code).toBe(1);
    const errors = lines(join(dir, 'converted.errors.jsonl')).map((l) => JSON.parse(l) as Record<string, unknown>);
    const offset = Buffer.byteLength(source.slice(0, 7).join('\n')) + 1;
    expect(errors).toEqual([{ file: input, line: 8, byteOffset: offset, code: 'E_JSON', message: expect.any(String) }]);
    expect(r.stderr).toContain(`${input}:8: E_JSON:`);
    const summary = JSON.parse(r.stdout) as {
      transcripts: number;
      errors: Record<string, number>;
      lines: Record<string, number>;
      repairs: Record<string, number>;
    };
    expect(summary.transcripts).toBe(1);
    expect(summary.errors).toEqual({ E_JSON: 1 });
    expect(summary.lines).toEqual({ read: 15, ok: 8, failed: 1, skipped: 6 });
    expect(summary.repairs).toEqual({ orphanResultDropped: 1 }); // the lost line held a tool use: its result has no call
  });

  it('writes Anthropic Messages API conversations with --to anthropic', async () => {
    const dir = tempDir('convert');
    const out = join(dir, 'anthropic.jsonl');
    const r = await run(['convert', SPOTTER_SHORT, '--out', out, '--to', 'anthropic']);
    expect(r.code).toBe(0);
    const [conversation] = lines(out).map((l) => JSON.parse(l) as { id: string; messages: { role: string; content: { type: string }[] | string }[] });
    expect(conversation.id).toBe('55604662-cf2a-4331-851a-ec234028f8ca');
    expect(conversation.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'user']);
    expect((conversation.messages[1].content as { type: string }[]).map((b) => b.type)).toEqual(['thinking', 'text', 'text', 'tool_use', 'tool_use']);
    expect((conversation.messages[2].content as { type: string }[]).map((b) => b.type)).toEqual(['tool_result', 'tool_result']);
  });

  it('rejects a missing --out and an unknown --to as usage errors (exit 2) without writing anything', async () => {
    expect((await run(['convert', SPOTTER_SHORT])).code).toBe(2);
    const r = await run(['convert', SPOTTER_SHORT, '--out', join(tmpdir(), 'never.jsonl'), '--to', 'yaml']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--to must be one of openai, anthropic, got "yaml"');
  });
});
