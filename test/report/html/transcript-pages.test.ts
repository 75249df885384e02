import { describe, expect, it } from 'vitest';
import { transcriptPageName } from '../../../src/report/html/transcript-pages.js';

describe('transcriptPageName', () => {
  it('keeps a plain id readable and adds a hash of it', () => {
    expect(transcriptPageName('ae4a77f8-aedd-4bc1')).toMatch(/^ae4a77f8-aedd-4bc1-[0-9a-f]{8}\.html$/);
  });

  it('makes any id a safe file name that cannot leave the folder', () => {
    for (const id of ['swe-agent/pydicom', '../../etc/passwd', 'a b?c*d', '.hidden', '', 'é'.repeat(300)]) {
      const name = transcriptPageName(id);
      expect(name, id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9._-]*\.html$/);
      expect(name.length, id).toBeLessThanOrEqual(64 + 14);
    }
  });

  it('gives ids that read alike once made safe different names, and the same id the same name', () => {
    const ids = ['gpt-4o#task-1', 'gpt-4o/task-1', 'gpt-4o task-1', 'GPT-4o#task-1'];
    const names = ids.map(transcriptPageName);
    expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(ids.length);
    expect(ids.map(transcriptPageName)).toEqual(names);
  });
});
