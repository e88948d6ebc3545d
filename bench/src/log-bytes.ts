/**
 * Log volume per request: bytes and lines each process of a running scripts/stack.sh stack
 * appends to its log for a typical mix of calls through the gateway (a friend list, the
 * incoming requests, the achievements, one stat report with its consumer work).
 *
 *   node bench/src/log-bytes.ts [--requests N]     # N calls in all (default 400), ~10 s
 *
 * Environment: STATE_FILE (default .stack/state.json) and LOG_DIR (default .stack/logs),
 * as scripts/stack.sh was given them; JWT_SECRET if the stack was started with another.
 * Prints one table (per service and in all: bytes/request, lines/request) and a JSON line.
 */
import { randomUUID } from 'node:crypto';
import { statSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Role } from '@gfts/contracts';
import { call, Credentials, DEV_INTERNAL_SECRET, DEV_JWT_SECRET, readStackState } from './stack.ts';

const USAGE = 'usage: node bench/src/log-bytes.ts [--requests N]   (against a running scripts/stack.sh; see the file header)';
const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(readFileSync(new URL(import.meta.url), 'utf8').split('*/')[0]!.replace(/^\/\*\*|^ \* ?/gm, '').trim());
  process.exit(0);
}
const at = args.indexOf('--requests');
const total = at >= 0 ? Number(args[at + 1]) : 400;
if (!Number.isInteger(total) || total < 4) {
  console.error(USAGE);
  process.exit(2);
}

const root = resolve(import.meta.dirname, '../..');
const state = readStackState(process.env.STATE_FILE ?? resolve(root, '.stack/state.json'));
const logDir = process.env.LOG_DIR ?? resolve(root, '.stack/logs');
const services = ['gateway', 'friendship', 'tasks'] as const;
const logFile = (service: string) => resolve(logDir, `${service}.log`);
const size = (service: string) => statSync(logFile(service)).size;
const lines = (service: string) => readFileSync(logFile(service), 'utf8').split('\n').length - 1;

const credentials = new Credentials(process.env.JWT_SECRET ?? DEV_JWT_SECRET, DEV_INTERNAL_SECRET);
const app = randomUUID();
const gamer = { id: randomUUID(), name: 'Log Bytes', avatar: 'https://example.com/a.png' };
const player = { authorization: credentials.bearerFor(app, gamer) };
const server = { authorization: credentials.bearerFor(app, { ...gamer, id: randomUUID() }, [Role.SERVER]) };
const gateway = state.services.gateway.url;

const mix: (() => Promise<number>)[] = [
  async () => (await call('GET', `${gateway}/api/v1/friendship`, player)).status,
  async () => (await call('GET', `${gateway}/api/v1/friendship/requests/incoming`, player)).status,
  async () => (await call('GET', `${gateway}/api/v1/achievements`, player)).status,
  async () => (await call('POST', `${gateway}/api/v1/stats`, server, {
    eventId: randomUUID(), applicationId: app, gamerId: gamer.id, gameId: 'log-bytes', occurredAt: new Date().toISOString(),
    stats: [{ applicationStatsId: 'wins', value: 1 }],
  })).status,
];

// warm-up: the first calls log one-off lines (connections, caches)
for (const step of mix) await step();
await new Promise((r) => setTimeout(r, 1_000));

const before = Object.fromEntries(services.map((s) => [s, { bytes: size(s), lines: lines(s) }]));
const statuses = new Map<number, number>();
for (let i = 0; i < total; i++) {
  const status = await mix[i % mix.length]!();
  statuses.set(status, (statuses.get(status) ?? 0) + 1);
  if (i % 100 === 99) process.stderr.write(`log-bytes: ${i + 1}/${total} calls\n`);
}
// the consumer's work for the last stat reports, and pino's asynchronous writes, land
await new Promise((r) => setTimeout(r, 2_000));

const rows = services.map((s) => ({ service: s, bytes: size(s) - before[s]!.bytes, lines: lines(s) - before[s]!.lines }));
const all = rows.reduce((sum, r) => ({ bytes: sum.bytes + r.bytes, lines: sum.lines + r.lines }), { bytes: 0, lines: 0 });
console.log(`log volume for ${total} calls through the gateway (statuses ${[...statuses].map(([s, n]) => `${s}x${n}`).join(' ')})`);
console.log('| process | bytes/request | lines/request |\n|---|---:|---:|');
for (const r of [...rows, { service: 'all', ...all }]) console.log(`| ${r.service} | ${(r.bytes / total).toFixed(0)} | ${(r.lines / total).toFixed(2)} |`);
console.log(JSON.stringify({ requests: total, perRequest: Object.fromEntries([...rows, { service: 'all', ...all }].map((r) => [r.service, { bytes: r.bytes / total, lines: r.lines / total }])) }));
