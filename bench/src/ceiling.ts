/**
 * The ceiling: a bare node:http server with the MongoDB driver doing the friendship
 * service's friend-list reads (same filter, sort, limit and projection, same database and
 * indexes) and answering the same JSON shape. No framework, no identity check, no
 * validation, no logging: what the stack could reach on this machine and database.
 *
 *   MONGO_URL=mongodb://127.0.0.1:PORT/friendship PORT=18090 node bench/src/ceiling.ts
 *   GET /friends?app=<applicationId>&gamer=<gamerId>&limit=100
 */
import { createServer } from 'node:http';
import { MongoClient } from 'mongodb';

const mongoUrl = process.env.MONGO_URL;
if (!mongoUrl) throw new Error('MONGO_URL is required');
const port = Number(process.env.PORT ?? 18090);

interface RelationRow {
  _id: string;
  members: string[];
  requester: string;
  addressee: string;
  status: string;
}
interface GamerRow {
  gamerId: string;
  displayName: string;
  avatar: string;
}

const client = new MongoClient(mongoUrl, { maxPoolSize: 50 });
await client.connect();
const db = client.db();
const relations = db.collection<RelationRow>('relations');
const gamers = db.collection<GamerRow>('gamers');

async function friendList(app: string, gamer: string, limit: number): Promise<string> {
  // The service's read: accepted relations the gamer requested, and those they were asked
  // for (two index ranges in _id order), merged.
  const side = (field: 'requester' | 'addressee') =>
    relations
      .find({ applicationId: app, [field]: gamer, status: 'accepted' }, { projection: { _id: 1, members: 1, requester: 1, addressee: 1, status: 1 } })
      .sort({ _id: 1 })
      .limit(limit + 1)
      .toArray();
  const [asked, askedBy] = await Promise.all([side('requester'), side('addressee')]);
  const rows = [...asked, ...askedBy].sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0)).slice(0, limit + 1);
  const shown = rows.slice(0, limit);
  const others = shown.map((r) => (r.requester === gamer ? r.addressee : r.requester));
  const profiles = new Map<string, GamerRow>();
  if (others.length) {
    const docs = await gamers.find({ applicationId: app, gamerId: { $in: [...new Set(others)] } }, { projection: { _id: 0, gamerId: 1, displayName: 1, avatar: 1 } }).toArray();
    for (const d of docs) profiles.set(d.gamerId, d);
  }
  return JSON.stringify(
    shown.map((r, i) => {
      const p = profiles.get(others[i]!);
      return { id: r._id, status: r.status, user: { id: others[i], displayName: p?.displayName ?? '', avatar: p?.avatar ?? '' } };
    }),
  );
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://ceiling');
  if (url.pathname === '/healthz') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    return;
  }
  if (url.pathname !== '/friends') {
    res.writeHead(404).end();
    return;
  }
  const app = url.searchParams.get('app') ?? '';
  const gamer = url.searchParams.get('gamer') ?? '';
  const limit = Math.min(200, Math.max(1, Number(url.searchParams.get('limit') ?? 50)));
  friendList(app, gamer, limit).then(
    (body) => res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(body),
    (error: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error)),
  );
});
server.keepAliveTimeout = 65_000;
server.listen(port, '127.0.0.1');

const stop = () => {
  server.close();
  server.closeAllConnections();
  void client.close().finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
