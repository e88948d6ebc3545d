/**
 * Re-renders a tasks-pipeline page from its JSON, optionally with a before/after table:
 *   node bench/src/render-pipeline-cli.ts bench/results/<after>.json [bench/results/<before>.json]
 * writes <after>.md next to the JSON.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { PipelineReport } from './pipeline-report.ts';
import { renderPipeline } from './render-pipeline.ts';

const [file, beforeFile] = process.argv.slice(2);
const asksHelp = process.argv.includes('--help') || process.argv.includes('-h');
if (asksHelp || !(file)) {
  (asksHelp ? console.log : console.error)('usage: node bench/src/render-pipeline-cli.ts <run>.json [<before>.json]  (re-renders <run>.md, with a before/after table when given)');
  process.exit(asksHelp ? 0 : 2);
}
const revive = (_k: string, v: unknown) => (v === null ? Number.NaN : v);
const load = (f: string) => JSON.parse(readFileSync(f, 'utf8'), revive) as PipelineReport;
const report = load(file);
if (report.kind !== 'tasks-pipeline') throw new Error(`${file} is not a tasks-pipeline result`);
writeFileSync(file.replace(/\.json$/, '.md'), renderPipeline(report, beforeFile ? load(beforeFile) : undefined));
console.log(`wrote ${file.replace(/\.json$/, '.md')}`);
