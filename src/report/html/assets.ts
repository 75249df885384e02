import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** A package's file, found from its resolved entry point (their `exports` do not list the browser builds). */
function packageFile(pkg: string, fromEntry: string): string {
  return readFileSync(join(dirname(require.resolve(pkg)), fromEntry), 'utf8');
}

let scripts: string | undefined;
let sorting: string | undefined;

const inline = (source: string): string => `<script>${source.replaceAll('</script', '<\\/script')}</script>`;

/**
 * The browser libraries every page inlines, read once from node_modules: Chart.js (UMD build, canvas rendering, no
 * dependency) for the charts, tablesort and its number sorter for sortable tables. A `</script` inside them would end
 * the element early, so it is escaped.
 */
export function libraryScripts(): string {
  scripts ??= [
    packageFile('chart.js', 'chart.umd.min.js'),
    packageFile('tablesort', '../dist/tablesort.min.js'),
    packageFile('tablesort', '../dist/sorts/tablesort.number.min.js'),
  ]
    .map(inline)
    .join('\n');
  return scripts;
}

/** Only tablesort and its number sorter, for a page without charts. */
export function sortScripts(): string {
  sorting ??= [packageFile('tablesort', '../dist/tablesort.min.js'), packageFile('tablesort', '../dist/sorts/tablesort.number.min.js')].map(inline).join('\n');
  return sorting;
}
