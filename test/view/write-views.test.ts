import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transcriptPageName } from '../../src/report/html/transcript-pages.js';
import { writeViews } from '../../src/view/write-views.js';
import { runMain } from '../helpers/cli-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';
import { type FakeServer, startFakeOpenAI } from '../llm/fake-openai-server.js';

/**
 * The pages of a run with a model, against the loopback OpenAI-compatible server: the workers compact a transcript up
 * to the summarizer and hand it on, the main thread summarizes it, so it has two restore layers; the page shows the
 * summary against the whole span it replaced, the originals given back through both layers.
 */
const SESSION = '491e126e-1e71-469c-ade2-fcc8af567c74';
const dir = tempDir('view-llm');
const run = join(dir, 'run');
let server: FakeServer;

beforeAll(async () => {
  server = await startFakeOpenAI({});
  const args = ['run', 'datasets/bundled/claude-code/subagent.jsonl', '--strategy', 'auto', '--window', '16000', '--out', run, '--quiet'];
  const r = await runMain([...args, '--model', 'gpt-4o-mini', '--llm', server.baseURL], { env: { OPENAI_API_KEY: 'test-key' } });
  expect(r.code, r.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await server.close();
});

describe('writeViews', () => {
  it('shows a transcript a model summarized against the span the summary replaced, through both of its restore layers', async () => {
    const compacted = readFileSync(join(run, 'transcripts.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { id: string; metadata: { tcompact?: { layers: number } } })
      .find((t) => t.id === SESSION);
    expect(compacted?.metadata.tcompact?.layers).toBe(2);
    const result = await writeViews({ runDir: run, ids: [SESSION] });
    expect(result).toMatchObject({ missing: [], failed: [], repeated: [] });
    const html = readFileSync(join(run, 'view', transcriptPageName(SESSION)), 'utf8');
    expect(html.match(/<div class="row merged"/g)).toHaveLength(1);
    expect(html).toMatch(/<div class="piece"><span class="s">summarize<\/span><span>merged into one message<\/span>/);
    expect(html).toContain('[tcompact summary of ');
    expect(html).not.toContain('strategy unknown');
  });
});
