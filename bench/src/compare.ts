/**
 * A before/after table of two runs (item 6: record the effect of a fix):
 *   node bench/src/compare.ts bench/results/<before>.json bench/results/<after>.json
 * prints Markdown: every scenario both runs have (rate, p50, p99 and the change), the
 * ratio checks, and the growth factors. Compare runs of the same mode on the same machine.
 */
import { readFileSync } from 'node:fs';
import { fmt, type BenchReport } from './report.ts';

const [beforeFile, afterFile] = process.argv.slice(2);
const asksHelp = process.argv.includes('--help') || process.argv.includes('-h');
if (asksHelp || !(beforeFile && afterFile)) {
  (asksHelp ? console.log : console.error)('usage: node bench/src/compare.ts <before>.json <after>.json  (prints a Markdown before/after table; bench/README.md)');
  process.exit(asksHelp ? 0 : 2);
}
const revive = (_k: string, v: unknown) => (v === null ? Number.NaN : v);
const load = (file: string) => JSON.parse(readFileSync(file, 'utf8'), revive) as BenchReport;
const before = load(beforeFile);
const after = load(afterFile);

const times = (b: number, a: number) => (Number.isFinite(b) && Number.isFinite(a) && b > 0 ? `×${fmt(a / b, a / b >= 10 ? 0 : 2)}` : '–');
const lines: string[] = [];
lines.push(`Before: \`${beforeFile}\` (${before.startedAt}); after: \`${afterFile}\` (${after.startedAt}). Rate change = after / before (higher is better); latency change = before / after (higher is better).`);
lines.push('');
lines.push('| scenario | rate before | rate after | rate change | p50 ms before → after | p99 ms before → after | p99 change |');
lines.push('|---|---|---|---|---|---|---|');
for (const a of after.scenarios) {
  const b = before.scenarios.find((s) => s.id === a.id);
  if (!b) continue;
  lines.push(
    `| ${a.title} | ${fmt(b.rate, 2)} ${b.unit} | ${fmt(a.rate, 2)} ${a.unit} | ${times(b.rate, a.rate)} | ${fmt(b.latency.p50, 1)} → ${fmt(a.latency.p50, 1)} | ${fmt(b.latency.p99, 1)} → ${fmt(a.latency.p99, 1)} | ${times(a.latency.p99, b.latency.p99)} |`,
  );
}
lines.push('');
lines.push('| check | before | after | aim | verdict before → after |');
lines.push('|---|---|---|---|---|');
for (const a of after.checks) {
  const b = before.checks.find((c) => c.name === a.name);
  const show = (v: number | undefined) =>
    v === undefined || !Number.isFinite(v) ? '–' : v !== 0 && Math.abs(v) < 0.01 ? v.toPrecision(2) : Math.abs(v) < 10 ? fmt(v, 2) : fmt(v, 0);
  lines.push(`| ${a.name} | ${show(b?.value)} | ${show(a.value)} | ${a.kind === 'min' ? '≥' : '≤'} ${show(a.aim)} | ${b?.verdict ?? '–'} → ${a.verdict} |`);
}
lines.push('');
lines.push('| growth series | p99 growth before | p99 growth after | exponent before → after |');
lines.push('|---|---|---|---|');
for (const a of after.growthFactors) {
  const b = before.growthFactors.find((g) => g.series === a.series);
  lines.push(`| ${a.series} | ×${fmt(b?.factorP99, 2)} | ×${fmt(a.factorP99, 2)} | ${fmt(b?.exponentP50, 2)} → ${fmt(a.exponentP50, 2)} |`);
}
console.log(lines.join('\n'));
