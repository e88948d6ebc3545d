/**
 * What one store round trip costs a Node service in CPU, with and without the MongoDB driver
 * (issue #16: the friendship service's CPU per request is mostly its store commands; a
 * friend request and its accept send 11). Against the friendship store of a running stack
 * (scripts/stack.sh), one operation at a time, each variant after a warm-up:
 *
 *   - raw: a `ping` as one OP_MSG written and read on a node:net socket by this file (no
 *     driver): the floor of any Node client here (a socket write, a read, one small BSON);
 *   - the driver (the services' mongodb version): `ping`; `find({_id}).toArray()` and
 *     `findOne({_id})` of a 10-document collection; `updateOne({_id}, {$inc})`;
 *     `findOneAndUpdate({_id}, {$set})`;
 *   - the same `findOneAndUpdate` through a mongoose model (`.lean()`), as the services'
 *     repositories write where they do not go to the driver's collection.
 *
 * For each: wall µs per operation, this process's CPU µs per operation (user + system, from
 * process.cpuUsage), and the store's (its container's process, from /proc) when found.
 *
 *   node bench/src/driver-cost.ts [--state .stack/state.json] [--ops 5000] [--label L] [--out bench/results]
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BSON, MongoClient } from 'mongodb';
import mongoose, { Schema } from 'mongoose';
import { machineSpeed } from './machine-speed.ts';
import { CLOCK_TICKS, parseStatTicks } from './procstat.ts';
import { containerPid, readStackState } from './stack.ts';

const HELP = `node bench/src/driver-cost.ts [options]: the CPU of one store round trip, raw and through the driver
  --state FILE   stack state (default .stack/state.json; start the stack with scripts/stack.sh)
  --ops N        operations per variant (default 5000), after N/10 of warm-up
  --label NAME   names the results: <date>-driver-cost-NAME.{md,json}
  --out DIR      results directory (default bench/results)
  --help         this text`;

/** An OP_MSG (opcode 2013) of one body section holding `command`. */
export function opMsg(requestId: number, command: Record<string, unknown>): Buffer {
  const body = BSON.serialize(command);
  const message = Buffer.alloc(21 + body.length);
  message.writeInt32LE(message.length, 0);
  message.writeInt32LE(requestId, 4);
  message.writeInt32LE(0, 8);
  message.writeInt32LE(2013, 12);
  message.writeUInt32LE(0, 16);
  message[20] = 0;
  message.set(body, 21);
  return message;
}

/** The document of a one-section OP_MSG reply, or undefined while `bytes` do not hold a whole one. */
export function opMsgReply(bytes: Buffer): Record<string, unknown> | undefined {
  if (bytes.length < 4 || bytes.length < bytes.readInt32LE(0)) return undefined;
  return BSON.deserialize(bytes.subarray(21, bytes.readInt32LE(0)));
}

interface VariantResult {
  variant: string;
  ops: number;
  wallUs: number;
  clientCpuUs: number;
  clientSystemUs: number;
  storeCpuUs: number | undefined;
}

const storeTicks = (pid: number | undefined): number | undefined => {
  if (pid === undefined) return undefined;
  try {
    return parseStatTicks(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
};

async function measure(variant: string, ops: number, storePid: number | undefined, op: (i: number) => Promise<unknown>): Promise<VariantResult> {
  for (let i = 0; i < Math.ceil(ops / 10); i++) await op(i);
  const ticks0 = storeTicks(storePid);
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < ops; i++) await op(i);
  const wallMs = performance.now() - start;
  const cpu = process.cpuUsage(cpu0);
  const ticks1 = storeTicks(storePid);
  const storeCpuUs = ticks0 === undefined || ticks1 === undefined ? undefined : (((ticks1 - ticks0) / CLOCK_TICKS) * 1e6) / ops;
  const result = { variant, ops, wallUs: (wallMs * 1000) / ops, clientCpuUs: (cpu.user + cpu.system) / ops, clientSystemUs: cpu.system / ops, storeCpuUs };
  console.log(`[driver-cost] ${variant}: wall ${result.wallUs.toFixed(0)} µs, client CPU ${result.clientCpuUs.toFixed(0)} µs (system ${result.clientSystemUs.toFixed(0)}), store CPU ${storeCpuUs === undefined ? '–' : storeCpuUs.toFixed(0)} µs per operation`);
  return result;
}

/** Pings over a bare socket: one OP_MSG out, one whole reply in, per operation. */
async function rawPinger(url: URL): Promise<{ ping: (i: number) => Promise<void>; close: () => void }> {
  const socket = connect(Number(url.port || 27017), url.hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.setNoDelay(true);
  let pending: Buffer = Buffer.alloc(0);
  let waiting: (() => void) | undefined;
  socket.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    const reply = opMsgReply(pending);
    if (!reply) return;
    pending = Buffer.alloc(0);
    if (reply.ok !== 1) throw new Error(`raw ping answered ${JSON.stringify(reply)}`);
    waiting?.();
  });
  return {
    ping: (i) => new Promise<void>((resolve) => {
      waiting = resolve;
      socket.write(opMsg(i + 1, { ping: 1, $db: 'admin' }));
    }),
    close: () => socket.destroy(),
  };
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) return void console.log(HELP);
  const unknown = argv.filter((a) => a.startsWith('-') && !['--state', '--ops', '--label', '--out'].includes(a));
  if (unknown.length > 0) {
    console.error(`unknown option ${unknown.join(', ')}\n${HELP}`);
    process.exit(2);
  }
  const arg = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
  const state = readStackState(arg('--state') ?? join(root, '.stack/state.json'));
  const ops = Number(arg('--ops') ?? 5000);
  const label = arg('--label');
  const outDir = arg('--out') ?? join(root, 'bench/results');
  const url = new URL(state.services.friendship.mongoUrl);
  const storePid = containerPid(state.engine, state.containers.friendshipDb);
  const speed = await machineSpeed();
  console.log(`[driver-cost] store ${url.host} (process ${storePid ?? 'not found'}); machine: CPU reference ${speed.cpuMs.toFixed(0)} ms, loopback round trip ${speed.loopbackUs.toFixed(0)} µs`);

  const results: VariantResult[] = [];
  const raw = await rawPinger(url);
  results.push(await measure('raw OP_MSG ping (no driver)', ops, storePid, raw.ping));
  raw.close();

  const client = new MongoClient(`mongodb://${url.host}/?directConnection=true`);
  await client.connect();
  try {
    const db = client.db(`bench_driver_cost_${process.pid}`);
    const docs = db.collection<{ _id: number; v: number }>('docs');
    await docs.insertMany(Array.from({ length: 10 }, (_, i) => ({ _id: i, v: 0 })));
    results.push(await measure('driver: ping', ops, storePid, () => db.command({ ping: 1 })));
    results.push(await measure('driver: find({_id}).toArray()', ops, storePid, (i) => docs.find({ _id: i % 10 }).toArray()));
    results.push(await measure('driver: findOne({_id})', ops, storePid, (i) => docs.findOne({ _id: i % 10 })));
    results.push(await measure('driver: updateOne({_id}, {$inc})', ops, storePid, (i) => docs.updateOne({ _id: i % 10 }, { $inc: { v: 1 } })));
    results.push(await measure('driver: findOneAndUpdate({_id}, {$set})', ops, storePid, (i) => docs.findOneAndUpdate({ _id: i % 10 }, { $set: { v: i } }, { returnDocument: 'before' })));
    await db.dropDatabase();
  } finally {
    await client.close();
  }

  // The same write through a mongoose model, as the services' repositories wrote it until
  // 2026-11-28 (docs/operations.md, "Request cost": the hot writes skip mongoose since)
  const mongo = await mongoose.createConnection(`mongodb://${url.host}/bench_driver_cost_m${process.pid}?directConnection=true`).asPromise();
  try {
    const Docs = mongo.model('Doc', new Schema({ _id: Number, v: Number }, { versionKey: false, strict: 'throw', collection: 'docs' }));
    await Docs.insertMany(Array.from({ length: 10 }, (_, i) => ({ _id: i, v: 0 })));
    results.push(await measure('mongoose: findOneAndUpdate({_id}, {$set}).lean()', ops, storePid, (i) => Docs.findOneAndUpdate({ _id: i % 10 }, { $set: { v: i } }, { returnDocument: 'before' }).lean()));
    await mongo.dropDatabase();
  } finally {
    await mongo.close();
  }

  const date = new Date().toISOString().slice(0, 10);
  const name = `${date}-driver-cost${label ? `-${label}` : ''}`;
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, `${name}.json`), `${JSON.stringify({ date: new Date().toISOString(), store: url.host, storeImage: state.mongoImage, machine: speed, results }, null, 2)}\n`);
  const rawCpu = results[0]!.clientCpuUs;
  const row = (r: VariantResult) => `| ${r.variant} | ${r.wallUs.toFixed(0)} | ${r.clientCpuUs.toFixed(0)} | ${r.clientSystemUs.toFixed(0)} | ${(r.clientCpuUs - rawCpu).toFixed(0)} | ${r.storeCpuUs === undefined ? '–' : r.storeCpuUs.toFixed(0)} |`;
  writeFileSync(join(outDir, `${name}.md`), [
    `# One store round trip's CPU, raw and through the driver — ${date}${label ? ` (${label})` : ''}`,
    '',
    `Command: \`node bench/src/driver-cost.ts --ops ${ops}${label ? ` --label ${label}` : ''}\`, against the friendship store of a running stack (\`${state.mongoImage}\`, ${url.host}), one operation at a time after ${Math.ceil(ops / 10)} of warm-up. Machine at the start: CPU reference work ${speed.cpuMs.toFixed(0)} ms, loopback TCP round trip ${speed.loopbackUs.toFixed(0)} µs (bench/src/machine-speed.ts).`,
    '',
    '| variant | wall µs/op | client CPU µs/op | of which system | client CPU over the raw ping | store CPU µs/op |',
    '|---|---|---|---|---|---|',
    ...results.map(row),
    '',
  ].join('\n'));
  console.log(`[driver-cost] wrote ${join(outDir, `${name}.md`)}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
