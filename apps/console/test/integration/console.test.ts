import type { StatDeadLetter } from '@gfts/contracts';
import { client, gamer, type Call, type Gamer } from '@gfts/testkit';
import { jetstream } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import axe from 'axe-core';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page, type Route } from 'playwright-core';
import { build } from 'vite';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
// The real stack as processes: the gateway serves the console built below.
import { startServiceProcesses, type ServiceProcesses } from '../../../../services/gateway/test/support/processes.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? process.env.GFTS_CHROMIUM ?? '/usr/bin/chromium';
const CONSOLE_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SHOTS = fileURLToPath(new URL('../../../../test-results/console', import.meta.url));
const UI_TIMEOUT_MS = 20_000;

/** Builds the console with its own Vite configuration into a fresh directory. */
async function buildConsole(outDir: string): Promise<void> {
  await build({ root: CONSOLE_ROOT, configFile: join(CONSOLE_ROOT, 'vite.config.ts'), logLevel: 'warn', build: { outDir, emptyOutDir: true } });
}

/** axe-core in the page (through the debugging protocol, which the page's CSP does not govern), serious and critical findings only. */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axe.source);
  const results = await page.evaluate(() => (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'] }));
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

describe('the admin console in Chromium, against the real stack', () => {
  let stack: ServiceProcesses;
  let browser: Browser;
  let page: Page;
  let nc: NatsConnection;
  let api: Call;
  let consoleDir: string;
  const app = crypto.randomUUID();
  const admin = gamer(app, 'Ada Admin', { roles: ['admin'] });
  const server = gamer(app, 'Game server', { roles: ['server'] });
  let player: Gamer;
  const cspViolations: string[] = [];
  const pageErrors: string[] = [];

  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  const report = (stat: string, value: number) =>
    api('POST', '/api/v1/stats', {
      headers: server.auth,
      body: { eventId: crypto.randomUUID(), applicationId: app, gamerId: player.id, gameId: 'g1', occurredAt: new Date().toISOString(), stats: [{ applicationStatsId: stat, value }] },
    });
  const row = (name: string) => page.locator('tr', { has: page.locator('th', { hasText: name }) }).first();
  /** Answers the next dialog (confirm) and resolves with its message. */
  const nextDialog = (accept: boolean) => new Promise<string>((resolve) => {
    page.once('dialog', (dialog) => {
      resolve(dialog.message());
      void (accept ? dialog.accept() : dialog.dismiss());
    });
  });
  /**
   * Counts the browser's requests of `method` to `url` and holds the first until `release`
   * (then it goes to the stack, or gets `answer`): a double click lands while it runs.
   */
  const holdFirst = async (url: string, method: string, answer?: () => Parameters<Route['fulfill']>[0]) => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const held = { count: 0, release };
    await page.route(url, async (route) => {
      if (route.request().method() !== method) return route.fallback();
      held.count += 1;
      if (held.count === 1) await released;
      return answer ? route.fulfill(answer()) : route.continue();
    });
    return held;
  };

  beforeAll(async () => {
    expect(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}: source scripts/provision.sh && gfts_provision (apt-get install chromium)`).toBe(true);
    mkdirSync(SHOTS, { recursive: true });
    consoleDir = mkdtempSync(join(tmpdir(), 'gfts-console-'));
    await buildConsole(consoleDir);
    stack = await startServiceProcesses({ gateway: { CONSOLE_DIR: consoleDir } });
    api = client(stack.gatewayUrl);
    nc = await connect({ servers: stack.natsUrl });
    // root in a container has no user namespaces for Chromium's sandbox
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(UI_TIMEOUT_MS);
    page.on('console', (message) => {
      if (/Content[- ]Security[- ]Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });

  // a test's stand-ins for the network end with it, passed or failed
  afterEach(() => page?.unrouteAll({ behavior: 'ignoreErrors' }));

  afterAll(async () => {
    await browser?.close();
    await nc?.drain();
    await stack?.close();
    if (consoleDir) rmSync(consoleDir, { recursive: true, force: true });
  });

  it('says when its settings do not load, and loads them again on Retry', async () => {
    await page.route('**/console/config.json', (route) => route.fulfill({ status: 503, contentType: 'application/json', body: '{"title":"Service Unavailable"}' }));
    await page.goto(`${stack.gatewayUrl}/console`);
    await expect.poll(() => page.getByRole('alert').textContent(), { timeout: UI_TIMEOUT_MS }).toContain('could not load its settings');
    expect(await seriousViolations(page)).toEqual([]);
    await page.unroute('**/console/config.json');
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.getByLabel('Admin token').waitFor();
    expect(pageErrors).toEqual([]);
  });

  it('refuses a token from the identity provider that it cannot use, and says why', async () => {
    const oidc = { authorizationUrl: `${stack.gatewayUrl}/idp/authorize`, tokenUrl: `${stack.gatewayUrl}/idp/token`, clientId: 'console', scope: 'openid', audience: null, tokenField: 'access_token' };
    await page.route('**/console/config.json', (route) => route.fulfill({ contentType: 'application/json', body: JSON.stringify({ tokenSignIn: true, oidc }) }));
    // the provider signs in a gamer without the admin role
    await page.route('**/idp/token', (route) => route.fulfill({ contentType: 'application/json', body: JSON.stringify({ access_token: gamer(app, 'Pat Player').token }) }));
    await page.goto(`${stack.gatewayUrl}/console`);
    await page.evaluate(() => sessionStorage.setItem('gfts-console-oidc', JSON.stringify({ verifier: 'v'.repeat(43), state: 'the-state' })));
    // the provider's redirect back
    await page.goto(`${stack.gatewayUrl}/console?code=the-code&state=the-state`);
    await expect.poll(() => page.getByRole('alert').first().textContent(), { timeout: UI_TIMEOUT_MS }).toContain('no admin role');
    expect(await page.evaluate(() => sessionStorage.getItem('gfts-console-token'))).toBeNull();
  });

  it('loads without a token, under a strict Content-Security-Policy, and signs in with an admin token', async () => {
    const response = await page.goto(`${stack.gatewayUrl}/console`);
    expect(response?.status()).toBe(200);
    const headers = response!.headers();
    expect(headers['content-security-policy']).toContain("script-src 'self'");
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['content-security-policy']).not.toMatch(/unsafe-(inline|eval)/);
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['x-frame-options']).toBe('DENY');

    // a token without the admin role is refused before any call
    await page.getByLabel('Admin token').fill(gamer(app, 'Pat Player').token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('no admin role');
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByLabel('Admin token').fill(admin.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Catalog', level: 1 }).waitFor();
    expect(await page.evaluate(() => Object.keys(localStorage).length)).toBe(0);
    await shot('01-signed-in');
  });

  it('creates a composite task, after showing the API\'s validation error for a composite of one child', async () => {
    await page.getByLabel('Name', { exact: true }).fill('Daily double');
    await page.getByLabel('Stat', { exact: true }).fill('kills');
    await page.getByLabel('Target value').fill('2');
    await page.getByRole('button', { name: 'Add child task' }).click();
    await page.getByLabel('Child 1 name').fill('Get kills');
    await page.getByLabel('Child 1 stat').fill('kills');
    await page.getByLabel('Child 1 target').fill('10');
    await page.getByRole('button', { name: 'Create task' }).click();
    const problem = page.locator('.task-form [role=alert]');
    await problem.waitFor();
    expect(await problem.textContent()).toMatch(/400 VALIDATION_FAILED/);
    expect(await problem.textContent()).toMatch(/children/);
    await shot('02-validation-error');
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Add child task' }).click();
    await page.getByLabel('Child 2 name').fill('Win games');
    await page.getByLabel('Child 2 stat').fill('wins');
    await page.getByLabel('Child 2 target').fill('2');
    await page.getByRole('button', { name: 'Create task' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Created “Daily double”');
    const listed = page.locator('li.task', { hasText: 'Daily double' });
    await listed.waitFor();
    expect(await listed.textContent()).toContain('composite');
    expect(await listed.textContent()).toContain('Get kills');
    await shot('03-composite-created');
  });

  it('creates a task once, however often Create task is clicked while the request runs', async () => {
    await page.getByLabel('Name', { exact: true }).fill('Weekly once');
    await page.getByLabel('Family').selectOption('weekly');
    await page.getByLabel('Stat', { exact: true }).fill('kills');
    const posts = await holdFirst(`**/api/v1/${app}/tasks`, 'POST');
    const create = page.getByRole('button', { name: 'Create task' });
    await create.dblclick();
    await expect.poll(() => create.isDisabled(), { timeout: UI_TIMEOUT_MS }).toBe(true);
    // and no edit can be chosen, nothing typed meanwhile: the create's success would empty the form under it
    const edits = page.getByRole('button', { name: /^Edit / });
    expect(await edits.count()).toBeGreaterThan(0);
    for (const edit of await edits.all()) expect(await edit.isDisabled()).toBe(true);
    expect(await page.getByLabel('Name', { exact: true }).isEditable()).toBe(false);
    posts.release();
    await expect.poll(() => page.getByRole('status').first().textContent(), { timeout: UI_TIMEOUT_MS }).toContain('Created “Weekly once”');
    expect(posts.count).toBe(1);
    const tasks = await api<{ name: string }[]>('GET', `/api/v1/${app}/tasks`, { headers: admin.auth });
    expect(tasks.body.filter((t) => t.name === 'Weekly once')).toHaveLength(1);
  });

  it('sends no change of a task that was not changed, and one that was', async () => {
    const patches: string[] = [];
    await page.route(`**/api/v1/${app}/tasks/*`, (route) => {
      if (route.request().method() === 'PATCH') patches.push(route.request().postData() ?? '');
      return route.fallback();
    });
    const status = () => page.getByRole('status').first().textContent();
    await page.getByRole('button', { name: 'Edit Weekly once' }).click();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(status, { timeout: UI_TIMEOUT_MS }).toBe('Nothing changed in “Weekly once”.');
    await expect.poll(() => page.getByRole('button', { name: 'Create task' }).isVisible(), { timeout: UI_TIMEOUT_MS }).toBe(true);
    expect(await page.locator('.task-form [role=alert]').count()).toBe(0);
    expect(patches).toEqual([]);

    await page.getByRole('button', { name: 'Edit Weekly once' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Weekly twice');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(status, { timeout: UI_TIMEOUT_MS }).toBe('Saved “Weekly twice”.');
    expect(patches.map((body) => JSON.parse(body) as unknown)).toEqual([{ name: 'Weekly twice' }]);
    await page.unroute(`**/api/v1/${app}/tasks/*`);
  });

  it('keeps the season end\'s seconds, and sends nothing when it did not change', async () => {
    const seasonOf = async () => (await api<{ endsAt: string; source: string }>('GET', `/api/v1/${app}/season`, { headers: admin.auth })).body;
    const before = await seasonOf();
    expect(before.source).toBe('quarter');
    const season = page.getByRole('region', { name: 'Season', exact: true });
    const endsAt = season.getByLabel('Season ends (UTC)');
    await expect.poll(() => endsAt.inputValue(), { timeout: UI_TIMEOUT_MS }).not.toBe('');
    await season.getByRole('button', { name: 'Save season' }).click();
    await expect.poll(() => season.getByRole('status').textContent(), { timeout: UI_TIMEOUT_MS }).toBe('Nothing changed.');
    expect(await seasonOf()).toEqual(before);

    const year = new Date().getUTCFullYear() + 1;
    await endsAt.fill(`${year}-06-30T23:59:59`);
    await season.getByRole('button', { name: 'Save season' }).click();
    await expect.poll(() => season.getByRole('status').textContent(), { timeout: UI_TIMEOUT_MS }).toBe('Saved.');
    expect(await seasonOf()).toMatchObject({ endsAt: `${year}-06-30T23:59:59.000Z`, source: 'admin' });
  });

  it('finds a gamer by display-name prefix and follows their tasks as stat events arrive', async () => {
    player = gamer(app, 'Zed Zimmer');
    const friend = gamer(app, 'Yan');
    for (const who of [player, friend]) expect((await api('GET', '/api/v1/friendship', { headers: who.auth })).status).toBe(200);
    expect((await api('POST', '/api/v1/friendship', { headers: player.auth, body: { target: friend.id } })).status).toBe(200);
    const assigned = await api<unknown[]>('POST', '/api/v1/tasks/assign', { headers: player.auth, body: { family: 'daily', numberOfTasks: 1 } });
    expect(assigned.status, JSON.stringify(assigned.body)).toBe(200);

    await page.getByRole('link', { name: 'Gamer' }).click();
    await page.getByLabel('Display-name prefix or gamer id').fill('zed');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.getByRole('link', { name: 'Zed Zimmer' }).click();
    await page.getByRole('heading', { name: 'Zed Zimmer' }).waitFor();
    expect(await page.getByRole('region', { name: 'Outgoing requests' }).textContent()).toContain('Yan');
    await expect.poll(() => row('Get kills').textContent()).toContain('0 / 10');

    expect((await report('kills', 4)).status).toBe(202);
    // the page refreshes by itself
    await expect.poll(() => row('Get kills').textContent(), { timeout: UI_TIMEOUT_MS }).toContain('4 / 10');
    // times are UTC and say so
    expect(await row('Daily double').textContent()).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    await shot('04-gamer-progress');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('asks for as many search results as the API gives, and says when the search was cut there', async () => {
    const quills = Array.from({ length: 51 }, (_, i) => gamer(app, `Quill ${String(i).padStart(2, '0')}`));
    for (let i = 0; i < quills.length; i += 10) {
      const registered = await Promise.all(quills.slice(i, i + 10).map((who) => api('GET', '/api/v1/friendship', { headers: who.auth })));
      expect(registered.map((r) => r.status)).toEqual(registered.map(() => 200));
    }
    await page.getByLabel('Display-name prefix or gamer id').fill('quill');
    await page.getByRole('button', { name: 'Find' }).click();
    const results = page.getByRole('region', { name: 'Search results' });
    await expect.poll(() => results.getByRole('listitem').count(), { timeout: UI_TIMEOUT_MS }).toBe(50);
    expect(await results.textContent()).toContain('The first 50 matches only');
    // a gamer's lists say their size; none here is as long as a page
    expect(await page.getByRole('region', { name: 'Outgoing requests' }).getByRole('heading').textContent()).toBe('Outgoing requests (1)');
  });

  it('replays a dead letter with its eventId and shows the progress it brings', async () => {
    // a game the consumer dead-lettered (its cause fixed since): one win for the player
    const event = { eventId: crypto.randomUUID(), applicationId: app, gamerId: player.id, gameId: 'g2', occurredAt: new Date().toISOString(), stats: [{ applicationStatsId: 'wins', value: 1 }] };
    const letter: StatDeadLetter = {
      reason: 'processing failed 5 times: database unavailable', subject: `${stack.natsPrefix}.stats.${app}`,
      streamSequence: 7, deliveryCount: 5, deadLetteredAt: new Date().toISOString(), payload: JSON.stringify(event), requestId: 'server-req-42',
    };
    await jetstream(nc).publish(`${stack.natsPrefix}.dlq.stats`, JSON.stringify(letter));

    await page.getByRole('link', { name: 'Dead letters' }).click();
    const listed = page.locator('tr', { hasText: event.eventId });
    await listed.waitFor();
    expect(await listed.textContent()).toContain('database unavailable');
    // the request id the event came with: the key to the game server's and the consumer's log lines
    expect(await listed.textContent()).toContain('request server-req-42');
    expect(await listed.locator('td').first().textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    expect(await page.locator('figure.chart text.tick').last().textContent()).toMatch(/^\d\d:\d\d:\d\d UTC$/);
    await listed.getByText('Payload').click();
    expect(await listed.locator('pre').textContent()).toContain('"applicationStatsId": "wins"');
    expect(await page.getByRole('img', { name: /Dead letters per hour.*latest 1/ }).count()).toBe(1);
    await shot('05-dead-letters');
    expect(await seriousViolations(page)).toEqual([]);

    await listed.getByRole('button', { name: /^Replay dead letter/ }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain(`event ${event.eventId}`);
    await page.getByText('No dead letters.').waitFor();

    await page.goto(`${stack.gatewayUrl}/console#/gamer/${player.id}`);
    await expect.poll(() => row('Win games').textContent(), { timeout: UI_TIMEOUT_MS }).toContain('1 / 2');
    await shot('06-progress-after-replay');
  });

  it('resets the gamer\'s task progress after a confirmation, and shows what was removed', async () => {
    const reset = page.getByRole('region', { name: 'Reset progress' });
    await reset.getByLabel('Scope').selectOption('tasks');
    await reset.getByRole('button', { name: 'Reset…' }).click();
    // nothing happens before the confirmation
    expect((await api<unknown[]>('GET', '/api/v1/tasks', { headers: player.auth })).body).toHaveLength(1);
    const resets = await holdFirst('**/progress/reset', 'POST');
    const confirmReset = reset.getByRole('button', { name: 'Confirm reset' });
    await confirmReset.dblclick();
    await expect.poll(() => confirmReset.isDisabled(), { timeout: UI_TIMEOUT_MS }).toBe(true);
    resets.release();
    await expect.poll(() => reset.getByRole('status').textContent(), { timeout: UI_TIMEOUT_MS }).toMatch(/^Reset \(tasks\): [1-9]\d* tasks and 0 inventory items removed\.$/);
    expect(resets.count).toBe(1);
    await expect.poll(() => page.getByRole('region', { name: 'Current tasks' }).textContent(), { timeout: UI_TIMEOUT_MS }).toContain('No tasks.');
    expect((await api<unknown[]>('GET', '/api/v1/tasks', { headers: player.auth })).body).toEqual([]);
    await shot('07-reset-progress');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('shows each service ready and the stat consumer\'s lag', async () => {
    await page.getByRole('link', { name: 'Health' }).click();
    await expect.poll(() => page.getByRole('region', { name: 'tasks readiness' }).textContent()).toContain('ready');
    expect(await page.getByRole('region', { name: 'friendship readiness' }).textContent()).toMatch(/readymongodb: ok/);
    await expect.poll(() => page.getByTestId('lag').textContent()).toMatch(/^\d+$/);
    await shot('08-health');
    expect(await seriousViolations(page)).toEqual([]);
    expect(cspViolations).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('shows the gateway ready when it answers, even with an error, and not reachable when no call gets through', async () => {
    const gateway = page.getByRole('region', { name: 'gateway readiness' });
    await page.route('**/admin/health', (route) => route.fulfill({ status: 502, contentType: 'application/problem+json', body: JSON.stringify({ title: 'Bad Gateway', status: 502, code: 'UPSTREAM_UNAVAILABLE' }) }));
    await page.getByRole('link', { name: 'Catalog' }).click();
    await page.getByRole('link', { name: 'Health' }).click();
    await expect.poll(() => page.getByRole('region', { name: 'friendship readiness' }).textContent(), { timeout: UI_TIMEOUT_MS }).toContain('not ready');
    expect(await gateway.textContent()).toContain('ready');
    expect(await gateway.getAttribute('class')).toContain('ready');

    await page.unroute('**/admin/health');
    await page.route('**/admin/health', (route) => route.abort('failed'));
    await expect.poll(() => gateway.textContent(), { timeout: UI_TIMEOUT_MS }).toContain('not reachable');
    expect(await gateway.getAttribute('class')).toContain('down');
    await page.unroute('**/admin/health');
    expect(pageErrors).toEqual([]);
  });

  it('shows the dead letters past the first page (200) on demand, their chart once all are loaded, keeps them through a replay or delete, and confirms Replay all', async () => {
    const js = jetstream(nc);
    for (let i = 0; i < 203; i++) {
      const letter: StatDeadLetter = {
        reason: 'payload is not UTF-8 JSON', subject: `${stack.natsPrefix}.stats.${app}`,
        streamSequence: 1_000 + i, deliveryCount: 1, deadLetteredAt: new Date().toISOString(), payload: 'not json',
      };
      await js.publish(`${stack.natsPrefix}.dlq.stats.${app}`, JSON.stringify(letter));
    }
    const replayAlls = await holdFirst('**/api/v1/admin/dead-letters/replay', 'POST', () => ({
      status: 504, contentType: 'application/problem+json', body: JSON.stringify({ title: 'Gateway Timeout', status: 504, code: 'UPSTREAM_UNAVAILABLE', detail: 'upstream service timed out' }),
    }));
    await page.getByRole('link', { name: 'Dead letters' }).click();
    const caption = page.locator('table.letters caption');
    // 200 letters read one by one from the stream: give it the UI's time, not poll's 1 s
    await expect.poll(() => caption.textContent(), { timeout: UI_TIMEOUT_MS }).toBe('200 dead letter(s), oldest first; more with Show more');
    // a chart of the oldest 200 would show a current flood as empty hours
    const chart = page.getByRole('img', { name: /Dead letters per hour/ });
    expect(await chart.count()).toBe(0);
    expect(await page.getByText('the chart appears once every letter is loaded').count()).toBe(1);

    // Replay all names how many it replays: the application's count now, not those shown; cancelled, it sends nothing
    const replayAll = page.getByRole('button', { name: 'Replay all' });
    const cancelled = nextDialog(false);
    await replayAll.click();
    expect(await cancelled).toContain('Replay the 203 dead letters the application holds now, oldest first?');

    await page.getByRole('button', { name: 'Show more' }).click();
    await expect.poll(() => caption.textContent(), { timeout: UI_TIMEOUT_MS }).toBe('203 dead letter(s), oldest first');
    expect(await page.getByRole('button', { name: 'Show more' }).count()).toBe(0);
    await chart.waitFor();
    expect(await page.getByText('the chart appears once every letter is loaded').count()).toBe(0);

    // a replay or delete removes its letter from what is shown, the letters past the first page stay
    const rows = page.locator('table.letters tbody tr');
    const sequenceAt = async (i: number) => Number(await rows.nth(i).getAttribute('data-sequence'));
    const [first, second, last] = [await sequenceAt(0), await sequenceAt(1), await sequenceAt(202)];
    const kept = nextDialog(false);
    await page.getByRole('button', { name: `Delete dead letter ${first}`, exact: true }).click();
    expect(await kept).toContain(`Delete dead letter ${first}?`);
    const deleted = nextDialog(true);
    await page.getByRole('button', { name: `Delete dead letter ${second}`, exact: true }).click();
    await deleted;
    await expect.poll(() => page.getByRole('status').first().textContent(), { timeout: UI_TIMEOUT_MS }).toBe(`Deleted dead letter ${second}.`);
    expect(await caption.textContent()).toBe('202 dead letter(s), oldest first');
    await page.getByRole('button', { name: `Replay dead letter ${first}`, exact: true }).click();
    await expect.poll(() => page.getByRole('status').first().textContent(), { timeout: UI_TIMEOUT_MS }).toContain(`Replayed dead letter ${first}`);
    expect(await caption.textContent()).toBe('201 dead letter(s), oldest first');
    expect(await page.locator(`tr[data-sequence="${last}"]`).count()).toBe(1);
    expect(await page.locator(`tr[data-sequence="${first}"], tr[data-sequence="${second}"]`).count()).toBe(0);

    // a 504 while the service replays one by one is no failure: the replay goes on
    const accepted = nextDialog(true);
    await replayAll.click();
    // 202: the replayed letter's payload is no JSON, and was dead-lettered again (201 are shown)
    expect(await accepted).toContain('Replay the 202 dead letters the application holds now, oldest first?');
    await expect.poll(() => replayAll.isDisabled(), { timeout: UI_TIMEOUT_MS }).toBe(true);
    replayAlls.release();
    await expect.poll(() => page.getByRole('status').first().textContent(), { timeout: UI_TIMEOUT_MS }).toContain('may still be running');
    expect(await page.locator('.problem').count()).toBe(0);
    // the list is read again: the letters shown may be being replayed, and acting on them would answer 404
    await expect.poll(() => caption.textContent(), { timeout: UI_TIMEOUT_MS }).toBe('200 dead letter(s), oldest first; more with Show more');
    await expect.poll(() => replayAll.isDisabled(), { timeout: UI_TIMEOUT_MS }).toBe(false);
    expect(replayAlls.count).toBe(1);

    // the count cannot be read: a plain failure, nothing asked, nothing sent
    await page.route('**/admin/health', (route) => route.abort('failed'));
    await replayAll.click();
    await expect.poll(() => page.locator('.problem').count(), { timeout: UI_TIMEOUT_MS }).toBe(1);
    expect(await page.getByText('may still be running').count()).toBe(0);
    await page.unroute('**/admin/health');
    expect(replayAlls.count).toBe(1);

    // more remain: the next Replay all goes on after the last letter the one before tried
    // (letters whose replay failed stay: from the oldest it would try them again first)
    await page.unroute('**/api/v1/admin/dead-letters/replay');
    const asked: (string | null)[] = [];
    await page.route(/\/api\/v1\/admin\/dead-letters\/replay(\?|$)/, (route) => {
      if (route.request().method() !== 'POST') return route.fallback();
      asked.push(new URL(route.request().url()).searchParams.get('after'));
      return route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ replayed: [], failed: [], more: true, after: 4242 }) });
    });
    const questions: string[] = [];
    for (let call = 1; call <= 2; call++) {
      const confirmed = nextDialog(true);
      await replayAll.click();
      questions.push(await confirmed);
      await expect.poll(() => asked.length, { timeout: UI_TIMEOUT_MS }).toBe(call);
      await expect.poll(() => replayAll.isDisabled(), { timeout: UI_TIMEOUT_MS }).toBe(false);
    }
    expect(asked).toEqual([null, '4242']);
    // the second is asked as what it does: on after 4242, not all of them from the oldest
    expect(questions[0]).toMatch(/^Replay the \d+ dead letters the application holds now, oldest first\?/);
    expect(questions[1]).toMatch(/^Replay the dead letters after number 4242, where the last Replay all stopped \(the application holds \d+ dead letters now/);
    expect(pageErrors).toEqual([]);
  });
});
