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

/**
 * The other record types a 2.x client writes, each as a file's first line: the conversation's, the 1.x and 2.0
 * leading `summary`, and the snapshot, queue and progress records (ccusage's claude adapter and Claude Code's bundle:
 * the session store's write switch).
 */
const OTHER_RECORDS: Record<string, unknown>[] = [
  { type: 'user', uuid: 'u-1', parentUuid: null, sessionId: 's-1', message: { role: 'user', content: 'fix the build' } },
  {
    type: 'assistant',
    uuid: 'u-2',
    parentUuid: 'u-1',
    sessionId: 's-1',
    message: { id: 'msg_1', role: 'assistant', model: 'claude-opus-4-6', content: [{ type: 'text', text: 'ok' }] },
  },
  { type: 'system', subtype: 'local_command', uuid: 'u-3', sessionId: 's-1', content: '<command-name>/model</command-name>' },
  { type: 'summary', summary: 'Build fixed', leafUuid: 'u-2' },
  {
    type: 'file-history-snapshot',
    messageId: 'm-1',
    snapshot: { messageId: 'm-1', trackedFileBackups: {}, timestamp: '2026-04-01T10:00:00.000Z' },
    isSnapshotUpdate: false,
  },
  { type: 'queue-operation', operation: 'enqueue', timestamp: '2026-04-01T10:00:00.000Z', sessionId: 's-1', content: 'and the tests' },
  {
    type: 'progress',
    uuid: 'u-4',
    sessionId: 's-1',
    toolUseID: 'toolu_1',
    parentToolUseID: 'toolu_1',
    data: { type: 'hook_progress', hookEvent: 'PostToolUse', hookName: 'PostToolUse:Edit', command: 'prettier' },
  },
  { type: 'custom-title', customTitle: 'build', sessionId: 's-1' },
  { type: 'isolation-latch', sessionId: 's-1' },
  { type: 'bridge-session', sessionId: 's-1' },
  { type: 'fork-context-ref', sessionId: 's-1' },
  { type: 'marble-origami-snapshot', sessionId: 's-1' },
  { type: 'marble-origami-reset', sessionId: 's-1' },
];

describe('Claude Code record types of the 2.x clients', () => {
  it('recognises a session whose first record is any other record type a 2.x client writes', async () => {
    for (const record of OTHER_RECORDS) {
      const file = scratchFile(`first-${String(record.type)}.jsonl`, `${JSON.stringify(record)}\n`);
      const d = await detectFormat(file, READ);
      expect(d.ok && d.format, String(record.type)).toBe('claude-code');
    }
  });

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
