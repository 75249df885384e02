import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/formats/detect.js';
import { readInputs } from '../../src/formats/read-inputs.js';
import { walkDataFiles } from '../../src/formats/walk.js';
import { tempDir } from '../helpers/temp-dir.js';
import { READ, accountedUnits, collect, errorsOf, filesUnder, scratchFile, transcriptsOf } from './helpers.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');

async function formatOf(file: string): Promise<string | undefined> {
  const d = await detectFormat(file, READ);
  return d.ok ? d.format : `${d.code}: ${d.message}`;
}

describe('detection of Gemini CLI, Cline, OpenCode and goose files', () => {
  it('recognises the recordings in both layouts, the checkpoints and the Cline histories', async () => {
    const expected: [string[], string][] = [
      [filesUnder(join(FIXTURES, 'gemini', 'chats'), /^session-.*\.jsonl?$/), 'gemini'],
      [filesUnder(join(FIXTURES, 'gemini', 'checkpoints'), /\.json$/), 'gemini-checkpoint'],
      [filesUnder(join(FIXTURES, 'cline'), /^api_conversation_history\.json$/), 'cline'],
      [filesUnder(join(FIXTURES, 'roo'), /^api_conversation_history\.json$/), 'cline'],
      [filesUnder(join(FIXTURES, 'opencode'), /\.json$/), 'opencode'],
      [filesUnder(join(FIXTURES, 'goose'), /\.jsonl$/), 'goose'],
    ];
    for (const [files, format] of expected) {
      expect(files.length).toBeGreaterThan(0);
      for (const f of files) expect(await formatOf(f), f).toBe(format);
    }
  });

  it('tells a Cline history by its fields when the file was renamed, and leaves plain message arrays to messages', async () => {
    const cline = scratchFile('task.json', JSON.stringify([{ role: 'user', content: [{ type: 'text', text: 'hi' }], ts: 1 }]));
    const plain = scratchFile('chat.json', JSON.stringify([{ role: 'user', content: 'hi' }]));
    expect(await formatOf(cline)).toBe('cline');
    expect(await formatOf(plain)).toBe('messages');
  });

  it("reports Gemini CLI's logs.json (the user's prompts only) as an unknown format", async () => {
    const log = [{ sessionId: 's', messageId: 0, type: 'user', message: 'fix the test', timestamp: '2025-11-12T09:44:02.118Z' }];
    expect(await formatOf(scratchFile('logs.json', JSON.stringify(log, null, 2)))).toMatch(/^E_FORMAT: unknown format/);
  });

  it('does not take a Claude Code record that has a sessionId for a Gemini recording', async () => {
    const file = scratchFile('s.jsonl', `${JSON.stringify({ type: 'user', sessionId: 's', uuid: 'u', message: { role: 'user', content: 'hi' } })}\n`);
    expect(await formatOf(file)).toBe('claude-code');
  });

  it('reads their folders through readInputs, every unit accounted for', async () => {
    const items = await collect(
      readInputs([join(FIXTURES, 'gemini'), join(FIXTURES, 'cline', 'tasks'), join(FIXTURES, 'opencode'), join(FIXTURES, 'goose')], READ),
    );
    expect(errorsOf(items)).toEqual([]);
    expect(transcriptsOf(items).map((t) => t.transcript.metadata?.source)).toMatchObject([
      { format: 'gemini' },
      { format: 'gemini' },
      { format: 'gemini-checkpoint' },
      { format: 'cline' },
      { format: 'opencode' },
      { format: 'goose' },
    ]);
    expect(accountedUnits(items)).toBe(1 + 21 + 1 + 8 + 1 + 13);
  });

  it("walks a Cline task folder to its history alone, leaving the UI's copy and the file tracking out", async () => {
    const task = join(tempDir('cline-task'), 'tasks', '1762940642118');
    mkdirSync(task, { recursive: true });
    copyFileSync(join(FIXTURES, 'cline', 'tasks', '1762940642118', 'api_conversation_history.json'), join(task, 'api_conversation_history.json'));
    writeFileSync(join(task, 'ui_messages.json'), JSON.stringify([{ ts: 1, type: 'say', say: 'text', text: 'I will read', partial: true }]));
    writeFileSync(join(task, 'task_metadata.json'), JSON.stringify({ files_in_context: [] }));
    const walked: string[] = [];
    for await (const f of walkDataFiles(task)) walked.push(f);
    expect(walked).toEqual([join(task, 'api_conversation_history.json')]);
  });

  it('walks to a ui_messages.json whose history is gone, and reads it as Cline usage', async () => {
    const task = join(tempDir('cline-ui-alone'), 'tasks', '1745000000000');
    mkdirSync(task, { recursive: true });
    copyFileSync(join(FIXTURES, 'cline', 'with-ui', 'tasks', '1745000000000', 'ui_messages.json'), join(task, 'ui_messages.json'));
    const walked: string[] = [];
    for await (const f of walkDataFiles(task)) walked.push(f);
    expect(walked).toEqual([join(task, 'ui_messages.json')]);
    expect(await formatOf(walked[0])).toBe('cline');
  });

  it("walks Roo Code's and Cline's tasks folder to the histories alone, leaving Roo's task summaries and index and Cline's context edits out", async () => {
    const tasks = join(tempDir('roo-tasks'), 'tasks');
    const task = join(tasks, '0b7e5a34-2f1c-4d8e-9a6b-3c5d7e9f1a2b');
    mkdirSync(task, { recursive: true });
    copyFileSync(
      join(FIXTURES, 'roo', 'tasks', '0b7e5a34-2f1c-4d8e-9a6b-3c5d7e9f1a2b', 'api_conversation_history.json'),
      join(task, 'api_conversation_history.json'),
    );
    const item = { id: '0b7e5a34-2f1c-4d8e-9a6b-3c5d7e9f1a2b', number: 1, ts: 1, task: 'fix', tokensIn: 0, tokensOut: 0, totalCost: 0, workspace: '/w' };
    writeFileSync(join(task, 'history_item.json'), JSON.stringify(item));
    writeFileSync(join(task, 'context_history.json'), JSON.stringify([]));
    writeFileSync(join(tasks, '_index.json'), JSON.stringify({ version: 1, entries: [item] }));
    const items = await collect(readInputs([tasks], READ));
    expect(errorsOf(items)).toEqual([]);
    expect(transcriptsOf(items).map((t) => t.file)).toEqual([join(task, 'api_conversation_history.json')]);
  });
});
