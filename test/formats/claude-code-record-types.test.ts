import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/formats/detect.js';
import { readInputs } from '../../src/formats/read-inputs.js';
import { recordedUsage } from '../../src/replay/billing/recorded-usage.js';
import { READ, accountedUnits, collect, errorsOf, lineCount, scratchFile, skippedOf, transcriptsOf } from './helpers.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'claude-code');

/** The metadata records Claude Code 2.x appends to a session file, each as it writes it (see the fixtures' SOURCE.md). */
const METADATA_RECORDS: Record<string, unknown>[] = [
  { type: 'permission-mode', permissionMode: 'acceptEdits' },
  { type: 'last-prompt', lastPrompt: 'fix the build' },
  { type: 'ai-title', aiTitle: 'Fix the build' },
  { type: 'agent-name', agentName: 'builder' },
  { type: 'agent-color', agentColor: 'green' },
  { type: 'agent-setting', agentSetting: 'general-purpose' },
  { type: 'tag', tag: 'ci' },
  { type: 'mode', mode: 'normal' },
  { type: 'worktree-state', worktreeSession: null },
  { type: 'pr-link', prNumber: 7, prUrl: 'https://example.invalid/pr/7', prRepository: 'dev/project' },
  { type: 'task-summary', summary: 'builds again' },
  { type: 'content-replacement', replacements: [] },
  { type: 'marble-origami-commit', collapseId: 'c1' },
  { type: 'attribution-snapshot', messageId: 'm1', surface: 'cli', fileStates: {} },
];

describe('Claude Code record types of the 2.x clients', () => {
  it('recognises a session whose first record is any metadata record a 2.x client writes', async () => {
    for (const record of METADATA_RECORDS) {
      const file = scratchFile(`${String(record.type)}.jsonl`, `${JSON.stringify({ ...record, sessionId: 's-1' })}\n`);
      const d = await detectFormat(file, READ);
      expect(d.ok && d.format, String(record.type)).toBe('claude-code');
    }
    const attachment = { type: 'attachment', parentUuid: null, uuid: 'u-1', sessionId: 's-1', attachment: { type: 'todo', content: [] } };
    const d = await detectFormat(scratchFile('attachment.jsonl', `${JSON.stringify(attachment)}\n`), READ);
    expect(d.ok && d.format).toBe('claude-code');
  });

  it('reads a session whose first record is speculation-accept, which carries no uuid nor sessionId', async () => {
    const file = join(FIXTURES, 'speculation-accept-first.jsonl');
    const d = await detectFormat(file, READ);
    expect(d.ok && d.format).toBe('claude-code');
    const items = await collect(readInputs([file], READ));
    expect(errorsOf(items)).toEqual([]);
    expect(recordedUsage(transcriptsOf(items)[0].transcript)).toMatchObject({ calls: 2, cacheCreation: 19_890, cacheRead: 19_800 });
    expect(skippedOf(items).map((s) => s.reason)).toEqual(['record:speculation-accept']);
    expect(accountedUnits(items)).toBe(lineCount(file));
  });

  it('reads a 2.1.128 session that starts with permission-mode: its calls, and every metadata line skipped by its type', async () => {
    const file = join(FIXTURES, 'permission-mode-first.jsonl');
    const items = await collect(readInputs([file], READ));
    expect(errorsOf(items)).toEqual([]);
    const [t] = transcriptsOf(items);
    expect(t.transcript.id).toBe('7a1c0b2e-0000-4000-8000-000000000128');
    expect(recordedUsage(t.transcript)).toMatchObject({ calls: 2, cacheCreation: 21_580, cacheRead: 21_400 });
    expect(skippedOf(items).map((s) => s.reason)).toEqual([
      'record:permission-mode',
      'record:last-prompt',
      'record:ai-title',
      'record:agent-name',
      'record:agent-color',
      'record:custom-title',
      'record:tag',
      'record:mode',
      'record:worktree-state',
      'record:pr-link',
    ]);
    expect(accountedUnits(items)).toBe(lineCount(file));
  });
});
