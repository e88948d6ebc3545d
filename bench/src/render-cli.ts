/**
 * Re-renders a results page from its JSON (after a change to the page's layout):
 *   node bench/src/render-cli.ts bench/results/<date>.json
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { renderMarkdown } from './render.ts';
import type { BenchReport } from './report.ts';

const file = process.argv[2];
if (!file?.endsWith('.json')) throw new Error('usage: node bench/src/render-cli.ts bench/results/<date>.json');
const report = JSON.parse(readFileSync(file, 'utf8'), (_k, v: unknown) => (v === null ? Number.NaN : v)) as BenchReport;
writeFileSync(file.replace(/\.json$/, '.md'), renderMarkdown(report));
console.log(`wrote ${file.replace(/\.json$/, '.md')}`);
