// The tour of scripts/demo.sh, as game clients, a game server and an admin tool would make it:
// with the typed client @gfts/client, printing every call. demo.sh mints the tokens and
// passes them in the environment; run it, not this file.
//   node scripts/demo.ts <gateway-url>     (env: DEMO_APP, DEMO_ANN_ID, DEMO_BOB_ID and the
//                                           ADMIN, SERVER, ANN, BOB bearer tokens)
import { randomUUID } from 'node:crypto';
import { connectNotifications, createApiClient, type ApiClient, type Notification, type NotificationsClient } from '@gfts/client';

const USAGE = 'usage: scripts/demo.sh [gateway-url]   (this script is its second half; see scripts/demo.sh --help)';
const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}
/** One line on stderr (no stack trace: what went wrong is the message), then exit. */
function fail(message: string, code = 1, usage = false): never {
  console.error(usage ? `${message}\n${USAGE}` : message);
  process.exit(code);
}
const unknown = args.find((arg) => arg.startsWith('-'));
if (unknown) fail(`scripts/demo.ts: unknown option ${unknown}`, 2, true);
if (args.length > 1) fail(`scripts/demo.ts: one argument at most, the gateway URL (got ${args.length})`, 2, true);

const gateway = args[0] ?? 'http://localhost:8080';
// `localhost:8080` parses as a URL of scheme "localhost:": ask for the scheme itself
if (!/^https?:\/\/[^/]/i.test(gateway) || !URL.canParse(gateway)) fail(`scripts/demo.ts: the gateway URL must start with http:// or https:// (got ${gateway})`, 2, true);
const unreachable = () => fail(`cannot reach ${gateway}: is scripts/stack.sh running?`);
// A failed fetch mid-tour (the stack stopped) or a refused step ends the tour with one line too.
process.on('uncaughtException', (error) => {
  if (error instanceof TypeError && error.message === 'fetch failed') unreachable();
  fail(`demo stopped: ${error instanceof Error ? error.message : String(error)}`);
});
await fetch(`${gateway.replace(/\/+$/, '')}/healthz`, { signal: AbortSignal.timeout(5_000) }).catch(unreachable);

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) fail(`${name} is not set: run scripts/demo.sh, which sets it`);
  return value;
};
const app = env('DEMO_APP');
const annId = env('DEMO_ANN_ID');
const bobId = env('DEMO_BOB_ID');

/** A client acting as `who`, printing each call and its answer. */
function as(who: string, token: string): ApiClient {
  const api = createApiClient({ baseUrl: gateway, token });
  api.use({
    async onResponse({ request, response }) {
      const path = request.url.slice(gateway.replace(/\/+$/, '').length);
      const body = await response.clone().text();
      console.log(`  ${who}: ${request.method} ${decodeURI(path)} -> ${response.status}${body ? ` ${body}` : ''}`);
    },
  });
  return api;
}
const step = (title: string) => console.log(`\n\x1b[1m${title}\x1b[0m`);
/** The answer's data, or a stop with what the gateway said. */
function ok<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined) throw new Error(`${result.response.status}: ${JSON.stringify(result.error)}`);
  return result.data;
}

/**
 * `who`'s live notifications, printed as they arrive; undefined when this gateway serves no
 * notifications (a stack without the notifications service).
 */
async function listen(who: string, token: string, received: Notification[]): Promise<NotificationsClient | undefined> {
  const { response } = await createApiClient({ baseUrl: gateway, token }).GET('/api/v1/notifications', { params: { query: { limit: 1 } } });
  if (response.status === 404) {
    console.log(`  (no notifications service behind ${gateway}: ${who} does not listen)`);
    return undefined;
  }
  const live = connectNotifications({ baseUrl: gateway, token });
  live.on('notification', (n) => {
    received.push(n);
    console.log(`  ${who} <- ${n.type} ${JSON.stringify(n.data)}`);
  });
  await new Promise<void>((resolve, reject) => {
    live.on('open', () => resolve());
    live.on('stop', ({ reason }) => reject(new Error(`${who}'s notifications stopped: ${reason}`)));
  });
  console.log(`  ${who}: listening on ${gateway.replace(/^http/, 'ws')}/api/v1/notifications/live`);
  return live;
}

const admin = as('admin', env('ADMIN'));
const server = as('game server', env('SERVER'));
const ann = as('Ann', env('ANN'));
const bob = as('Bob', env('BOB'));
const sword = randomUUID();

step('1. admin creates a daily task: 3 wins within 5 games, reward 1 sword');
ok(await admin.POST('/api/v1/{applicationId}/tasks', {
  params: { path: { applicationId: app } },
  body: {
    name: 'Win 3', description: 'Win 3 games out of 5', targetValue: 3, numberOfGames: 5, family: 'daily',
    applicationStatsId: 'wins', isAchievement: false, rewards: [{ inventoryItemId: sword, quantity: 1 }],
  },
}));

step('2. Ann asks for one daily task');
const [task] = ok(await ann.POST('/api/v1/tasks/assign', { body: { family: 'daily', numberOfTasks: 1 } }));
if (!task) throw new Error('no task assigned');

step('3. Ann listens for notifications; the game server reports three games with a win each');
const annHeard: Notification[] = [];
const annLive = await listen('Ann', env('ANN'), annHeard);
for (const game of [1, 2, 3]) {
  ok(await server.POST('/api/v1/stats', {
    body: {
      eventId: randomUUID(), applicationId: app, gamerId: annId, gameId: `match-${game}`,
      occurredAt: new Date().toISOString(), stats: [{ applicationStatsId: 'wins', value: 1 }],
    },
  }));
}

step("4. Ann's completed tasks (the consumer applies the events within moments)");
const quiet = createApiClient({ baseUrl: gateway, token: env('ANN') });
for (let i = 0; i < 50; i++) {
  const { data } = await quiet.GET('/api/v1/tasks', { params: { query: { completed: true } } });
  if (data?.length) break;
  await new Promise((resolve) => setTimeout(resolve, 200));
}
ok(await ann.GET('/api/v1/tasks', { params: { query: { completed: true } } }));

step('5. Ann claims the reward, twice (the second is refused)');
ok(await ann.POST('/api/v1/tasks/{taskId}/claim', { params: { path: { taskId: task.id } } }));
await ann.POST('/api/v1/tasks/{taskId}/claim', { params: { path: { taskId: task.id } } });

step("6. Ann's inventory");
ok(await ann.GET('/api/v1/inventory'));

step('7. Bob registers (a friendship call does; only those do) and listens too; Ann finds Bob and sends a request, Bob accepts');
ok(await bob.GET('/api/v1/friendship'));
const bobHeard: Notification[] = [];
const bobLive = await listen('Bob', env('BOB'), bobHeard);
ok(await ann.GET('/api/v1/friendship/search', { params: { query: { displayName: 'bo' } } }));
ok(await ann.POST('/api/v1/friendship', { body: { target: bobId } }));
const [request] = ok(await bob.GET('/api/v1/friendship/requests/incoming'));
if (!request) throw new Error('Bob has no incoming request');
ok(await bob.POST('/api/v1/friendship/{friendshipId}/accept', { params: { path: { friendshipId: request.id } } }));
ok(await ann.GET('/api/v1/friendship'));
if (annLive && bobLive) {
  // the notifications follow the calls within moments
  for (let i = 0; i < 50 && !(bobHeard.some((n) => n.type === 'friend.request.received') && annHeard.some((n) => n.type === 'friend.request.accepted')); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  annLive.close();
  bobLive.close();
  if (!bobHeard.some((n) => n.type === 'friend.request.received')) throw new Error('Bob was not notified of the request');
  if (!annHeard.some((n) => n.type === 'friend.request.accepted')) throw new Error('Ann was not notified of the acceptance');
}
