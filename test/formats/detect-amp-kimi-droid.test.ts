import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/formats/detect.js';
import { walkDataFiles } from '../../src/formats/walk.js';
import { READ } from './helpers.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
const OWN = new Set(['amp', 'kimi', 'droid']);

describe('detection of Amp, Kimi CLI and Factory Droid files', () => {
  it("lands every fixture of theirs on its own reader, and claims no other reader's fixture", async () => {
    const wrong: string[] = [];
    let own = 0;
    for await (const file of walkDataFiles(FIXTURES)) {
      const d = await detectFormat(file, READ);
      const format = d.ok ? d.format : d.code;
      const expected = /[\\/]fixtures[\\/](amp|kimi|droid)[\\/]/.exec(file)?.[1];
      if (expected !== undefined) own++;
      if (expected !== undefined ? format !== expected : OWN.has(String(format))) wrong.push(`${file.slice(FIXTURES.length + 1)} -> ${format}`);
    }
    expect(own).toBe(20); // 2 Amp threads, kimi.json and 11 Kimi session files, 3 Droid sessions and their settings
    expect(wrong).toEqual([]);
  });
});
