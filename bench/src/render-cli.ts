/**
 * Re-renders a results page from its JSON (after a change to the page's layout):
 *   node bench/src/render-cli.ts bench/results/<date>.json
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { renderMarkdown } from './render.ts';
import type { BenchReport } from './report.ts';

const file = process.argv[2];
const asksHelp = process.argv.includes('--help') || process.argv.includes('-h');
if (asksHelp || !(file?.endsWith('.json'))) {
  (asksHelp ? console.log : console.error)('usage: node bench/src/render-cli.ts bench/results/<date>.json  (re-renders <date>.md from the JSON)');
  process.exit(asksHelp ? 0 : 2);
}
const report = JSON.parse(readFileSync(file, 'utf8'), (_k, v: unknown) => (v === null ? Number.NaN : v)) as BenchReport;
writeFileSync(file.replace(/\.json$/, '.md'), renderMarkdown(report));
console.log(`wrote ${file.replace(/\.json$/, '.md')}`);
