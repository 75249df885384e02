import { describe, expect, it } from 'vitest';
import { keyPhrases } from '../../src/retention/key-phrases.js';
import { isRetained } from '../../src/retention/matching.js';
import { viewOfMessages } from '../../src/retention/model-view.js';
import type { Probe } from '../../src/retention/probes.js';
import type { Message } from '../../src/model/message.js';
import { bundledTranscripts } from '../helpers/bundled-transcripts.js';

const view = (text: string) => viewOfMessages([{ role: 'user', content: text }]);
const artifact = (path: string, spellings = [path]): Probe => ({ kind: 'artifact', path, spellings, actions: ['read'] });

describe('retention rule', () => {
  it('matches a path as a whole path, not inside a longer one', () => {
    const p = artifact('/repo/src/a.ts');
    expect(isRetained(p, view('Edited /repo/src/a.ts: done.'))).toBe(true);
    expect(isRetained(p, view('Edited /repo/src/a.ts.'))).toBe(true);
    expect(isRetained(p, view('see /repo/src/a.ts:42'))).toBe(true);
    expect(isRetained(p, view('Edited /repo/src/a.tsx'))).toBe(false);
    expect(isRetained(p, view('Edited /other/repo/src/a.ts'))).toBe(false);
    expect(isRetained(p, view('Edited /repo/src/a.ts.bak'))).toBe(false);
  });

  it('accepts a path relative to the root, and any spelling the calls used', () => {
    expect(isRetained(artifact('/repo/src/a.ts'), view('Files: src/a.ts'), { root: '/repo' })).toBe(true);
    expect(isRetained(artifact('/repo/src/a.ts'), view('Files: src/a.ts'))).toBe(false);
    expect(isRetained(artifact('src/a.ts', ['./src/a.ts']), view('cat ./src/a.ts'))).toBe(true);
  });

  it('matches commands and error lines after whitespace collapsing, case-sensitively', () => {
    const command: Probe = { kind: 'command', command: 'npm test -- parser', runs: 1, failed: false };
    expect(isRetained(command, view('ran `npm  test\n -- parser` twice'))).toBe(true);
    expect(isRetained(command, view('ran npm test -- parsers'))).toBe(false);
    expect(isRetained(command, view('ran NPM test -- parser'))).toBe(false);
    const error: Probe = { kind: 'error', line: 'fatal: no upstream branch.', tool: 'Bash', resolved: false };
    expect(isRetained(error, view('Errors: fatal:   no upstream\nbranch. Fixed later.'))).toBe(true);
    expect(isRetained(error, view('Errors: no upstream branch'))).toBe(false);
  });

  it('reads tool-call arguments as the model receives them, decoded', () => {
    const messages: Message[] = [
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'a', type: 'function', function: { name: 'Bash', arguments: '{"command":"echo \\"hi\\"\\nls"}' } }],
      },
    ];
    const command: Probe = { kind: 'command', command: 'echo "hi" ls', runs: 1, failed: false };
    expect(isRetained(command, viewOfMessages(messages))).toBe(true);
  });

  it('retains a request when at least half of its key phrases survive', () => {
    const text = 'Implement controller tracing with span creation and trace headers';
    expect(keyPhrases(text)).toEqual(['implement controller', 'controller tracing', 'tracing span', 'span creation', 'creation trace', 'trace headers']);
    const probe: Probe = { kind: 'intent', text, match: 'phrases' };
    // 3 of 6 phrases: implement controller, controller tracing, span creation.
    expect(isRetained(probe, view('The user asked to implement controller tracing; span creation is done.'))).toBe(true);
    // 2 of 6: controller tracing, trace headers.
    expect(isRetained(probe, view('Work on controller tracing. Also trace headers.'))).toBe(false);
    const verbatim: Probe = { kind: 'intent', text, match: 'verbatim' };
    expect(isRetained(verbatim, view(`User: ${text}`))).toBe(true);
    expect(isRetained(verbatim, view('The user asked to implement controller tracing with span creation and trace headers'))).toBe(false);
  });

  it('does not count metadata or attachments as something the model reads', () => {
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:/repo/src/a.ts' } }], note: '/repo/src/a.ts' } as Message,
    ];
    expect(isRetained(artifact('/repo/src/a.ts'), viewOfMessages(messages))).toBe(false);
  });
});

describe('the model view of a prompt', () => {
  it('is the view of its messages joined: whitespace collapsed across message boundaries, blank messages dropped', async () => {
    const blank: Message = { role: 'user', content: ' \n\t ' };
    for (const t of await bundledTranscripts()) {
      const messages = [blank, ...t.messages.slice(0, 60), blank];
      const joined = messages
        .map((m) => viewOfMessages([m]).text)
        .filter((text) => text !== '')
        .join(' ');
      expect(viewOfMessages(messages).text).toBe(joined);
      expect(joined).not.toMatch(/\s\s|^\s|\s$/);
    }
  });
});
