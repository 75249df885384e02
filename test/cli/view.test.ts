import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { transcriptPageName } from '../../src/report/html/transcript-pages.js';
import { runMain } from '../helpers/cli-in-process.js';
import { type CliResult, runCli, tempDir } from '../pipeline/helpers.js';

/**
 * `tcompact run` then `tcompact view` on the bundled tau-bench sessions: the first view and the one that exits 1 from the
 * built command line (test/cli/run.test.ts runs `run` built), the others through its entry in this process.
 */
const dir = tempDir('view-cli');
const run = join(dir, 'run');
const DEDUPED = 'gpt-4o-airline#task-23-trial-3';
let runPage: string;
let viewed: CliResult;

beforeAll(async () => {
  const r = await runMain(['run', 'datasets/bundled/tau-bench', '--strategy', 'auto', '--out', run, '--quiet']);
  expect(r.code, r.stderr).toBe(0);
  runPage = readFileSync(join(run, 'report.html'), 'utf8');
  viewed = await runCli(['view', run]);
}, 240_000);

const largestIds = (): string[] =>
  (JSON.parse(readFileSync(join(run, 'report.json'), 'utf8')) as { spread: { largest: { id: string }[] } }).spread.largest.map((t) => t.id);

/** The run page's transcript cells without what links them or says how to: `<td>ID</td>`. */
const withoutLinks = (html: string): string =>
  html.replace(
    /<td title="[^"]*">(?:<a href="[^"]*">([^<]*)<\/a>|([^<]*))<\/td>/g,
    (_, linked: string | undefined, plain: string | undefined) => `<td>${linked ?? plain}</td>`,
  );

describe('tcompact view', () => {
  it('writes a page for each of the 20 largest transcripts into RUN_DIR/view and says where', () => {
    expect(viewed.stderr).toBe('');
    expect(viewed.code).toBe(0);
    expect(viewed.stdout).toBe(`view: 20 pages in ${join(run, 'view')}; ${join(run, 'report.html')} links to them\n`);
    const ids = largestIds();
    expect(ids).toHaveLength(20);
    for (const id of ids) expect(existsSync(join(run, 'view', transcriptPageName(id))), id).toBe(true);
  });

  it("links the run page's transcript rows to their pages, relatively, and changes nothing else in it", () => {
    const page = readFileSync(join(run, 'report.html'), 'utf8');
    const hrefs = [...page.matchAll(/<a href="([^"]*)">([^<]*)<\/a>/g)].map((m) => [m[2], m[1]]);
    expect(hrefs).toEqual(largestIds().map((id) => [id, `./view/${transcriptPageName(id)}`]));
    // Before `view`, each row said how to make its page.
    expect(runPage).toContain(`<td title="No page yet: tcompact view ${run} --id gpt-4o-airline#task-2-trial-1">gpt-4o-airline#task-2-trial-1</td>`);
    expect(withoutLinks(page)).toBe(withoutLinks(runPage));
    expect(withoutLinks(page)).not.toBe(page);
  });

  it('shows a transcript picked with --id into another folder, and keeps the links to the earlier pages', async () => {
    const elsewhere = join(dir, 'elsewhere');
    const r = await runMain(['view', run, '--id', DEDUPED, '--out', elsewhere]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const html = readFileSync(join(elsewhere, transcriptPageName(DEDUPED)), 'utf8');
    expect(html.match(/<div class="row removed"/g)).toHaveLength(2);
    expect(html).toContain('<span class="s">dedup-tools</span>');
    expect([...readFileSync(join(run, 'report.html'), 'utf8').matchAll(/<a href="\.\/view\//g)]).toHaveLength(20);
  });

  it('exits 1 naming an id the run does not have, and still writes the others', async () => {
    const out = join(dir, 'partly');
    const r = await runCli(['view', run, '--id', 'no-such-transcript', '--id', DEDUPED, '--out', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`view: transcript "no-such-transcript" is not in ${run}/transcripts.jsonl\n`);
    expect(existsSync(join(out, transcriptPageName(DEDUPED)))).toBe(true);
  });

  it('refuses a folder that is not a finished run, and an eval folder without lost.jsonl, with a usage error (exit 2)', async () => {
    const notRun = await runMain(['view', dir]);
    expect(notRun.code).toBe(2);
    expect(notRun.stderr).toContain(`view: ${join(dir, 'report.json')} does not exist`);
    const noEval = await runMain(['view', run, '--eval', dir]);
    expect(noEval.code).toBe(2);
    expect(noEval.stderr).toContain(`view: ${join(dir, 'lost.jsonl')} does not exist`);
  });

  it('links a page in a folder whose name holds a scheme as a ./-relative, percent-encoded path', async () => {
    const id = largestIds()[0];
    for (const name of ['javascript:alert(1)', 'view:x #1']) {
      const out = join(run, name);
      const r = await runMain(['view', run, '--id', id, '--out', out]);
      expect(r.code, r.stderr).toBe(0);
      const page = readFileSync(join(run, 'report.html'), 'utf8');
      const href = [...page.matchAll(/<a href="([^"]*)">([^<]*)<\/a>/g)].find((m) => m[2] === id)?.[1];
      expect(href).toBe(`./${encodeURIComponent(name)}/${transcriptPageName(id)}`);
      // Resolved against the run page, the link is the page's file, not a script or another scheme.
      expect(new URL(href ?? '', `file://${run}/`).pathname).toBe(`${join(run, encodeURIComponent(name))}/${transcriptPageName(id)}`);
    }
  });
});

/**
 * Ids the input wrote with JSON escapes, as Python's json.dumps does by default (`"caf\u00e9"`) or as any writer may
 * escape U+2028: transcripts.jsonl keeps an unchanged transcript's line as the input had it, so the lookup must parse.
 */
describe('tcompact view --id with an id the input escaped', () => {
  it('finds the transcript and writes its page', async () => {
    const escaped = join(dir, 'escaped');
    mkdirSync(escaped);
    const archive = join(escaped, 'archive.jsonl');
    const ids = ['caf\u00e9', 'line\u2028break'];
    const line = (id: string) =>
      JSON.stringify({
        id,
        messages: [
          { role: 'user', content: `hello ${id}` },
          { role: 'assistant', content: 'hi' },
        ],
      }).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    writeFileSync(archive, `${ids.map(line).join('\n')}\n`);
    expect(readFileSync(archive, 'utf8')).toContain('"caf\\u00e9"');
    const out = join(escaped, 'run');
    expect((await runMain(['run', archive, '--out', out, '--quiet', '--workers', '1'])).code).toBe(0);
    const r = await runMain(['view', out, ...ids.flatMap((id) => ['--id', id])]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    for (const id of ids) expect(existsSync(join(out, 'view', transcriptPageName(id))), id).toBe(true);
  });
});
