/**
 * Puts the tasks figures of a tasks-only run (BENCH_ONLY_TASKS=1) into a full run's
 * results, replacing that run's tasks section, and re-renders the page:
 *   node bench/src/merge-tasks.ts bench/results/<date>.json bench/results/<date>-tasks.json
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { renderMarkdown } from './render.ts';
import type { BenchReport } from './report.ts';
import type { ScenarioResult } from './load.ts';
import type { AimCheck } from './stats.ts';

const [fullFile, tasksFile] = process.argv.slice(2);
const asksHelp = process.argv.includes('--help') || process.argv.includes('-h');
if (asksHelp || !(fullFile && tasksFile)) {
  (asksHelp ? console.log : console.error)('usage: node bench/src/merge-tasks.ts <full>.json <tasks>.json  (puts a tasks-only run into a full run and re-renders its page)');
  process.exit(asksHelp ? 0 : 2);
}
const revive = (_k: string, v: unknown) => (v === null ? Number.NaN : v);
const full = JSON.parse(readFileSync(fullFile, 'utf8'), revive) as BenchReport;
const part = JSON.parse(readFileSync(tasksFile, 'utf8'), revive) as { startedAt: string; finishedAt: string; loadStart: number[]; loadEnd: number[]; tasks: Record<string, unknown>; scenarios: ScenarioResult[] };
const taskChecks = (part.tasks.checks as AimCheck[] | undefined) ?? [];
const isTaskCheck = (c: AimCheck) => /tasks consumer|event→completion/.test(c.name);
const firstTask = full.checks.findIndex(isTaskCheck);
const kept = full.checks.filter((c) => !isTaskCheck(c));
kept.splice(firstTask < 0 ? kept.length : firstTask, 0, ...taskChecks);
full.checks = kept;
full.scenarios = [...full.scenarios.filter((s) => !s.id.startsWith('tasks-')), ...part.scenarios.filter((s) => s.id.startsWith('tasks-'))];
full.tasks = part.tasks;
full.notes.push(
  `The tasks figures come from a tasks-only run (\`BENCH_ONLY_TASKS=1 bench/run.sh\`, same full-mode settings, fresh stack) from ${part.startedAt} to ${part.finishedAt}, load average ${part.loadStart.map((v) => v.toFixed(2)).join(' / ')} at its start: the full run's tasks phase found a stray document in the tasks database, skipped generating the 10k gamers' tasks, and so measured nothing useful (the guard now looks at the bench's own application).`,
);
writeFileSync(fullFile, JSON.stringify(full, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2));
writeFileSync(fullFile.replace(/\.json$/, '.md'), renderMarkdown(full));
console.log(`merged ${tasksFile} into ${fullFile} and re-rendered the page`);
