import { describe, expect, it } from 'vitest';
import { loadAdapter } from '../../src/formats/adapter-loaders.js';
import { ADAPTERS } from '../../src/formats/adapters.js';
import { FORMAT_NAMES } from '../../src/formats/types.js';

describe('loadAdapter', () => {
  it.each(FORMAT_NAMES)('%s: loads the reader ADAPTERS names for the format', async (format) => {
    expect(await loadAdapter(format)).toBe(ADAPTERS[format]);
  });
});
