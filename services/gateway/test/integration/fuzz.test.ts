import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { friendshipRoutes } from '@gfts/contracts';
import { mintToken } from '@gfts/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcesses, type ServiceProcesses } from '../support/processes.ts';

// Installed by scripts/provision.sh (_gfts_schemathesis), which exports its path as GFTS_SCHEMATHESIS.
const ST = process.env.GFTS_SCHEMATHESIS ?? `${process.env.GFTS_CACHE ?? `${process.env.HOME}/.cache/gamer-services`}/schemathesis-4.32.5/bin/st`;
// Bounded so that the run takes a minute or two on two cores; FUZZ_EXAMPLES / FUZZ_SEED to explore more.
const EXAMPLES = process.env.FUZZ_EXAMPLES ?? '40';
const SEED = process.env.FUZZ_SEED ?? '20261123';

function run(command: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, NO_COLOR: '1', SCHEMATHESIS_TELEMETRY: 'false' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('schemathesis against the stack', () => {
  let stack: ServiceProcesses;
  beforeAll(async () => {
    // The fuzzer sends thousands of requests as one gamer: raise the per-gamer budget.
    stack = await startServiceProcesses({ gateway: { RATE_LIMIT_MAX: '1000000' } });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('finds no failure in any operation with every check', async () => {
    expect(existsSync(ST), `schemathesis not installed at ${ST}: source scripts/provision.sh && gfts_provision`).toBe(true);
    // Both roles, so that the admin catalog and the server stats endpoints are reachable; a
    // gamer's token for what a game server may not do (assign, claim: 403 to a server's since
    // 2026-11-28; every friendship endpoint since 2026-11-29: unexercised under the two-role token)
    const app = randomUUID();
    const token = mintToken({ sub: randomUUID(), app, name: 'Fuzz', roles: ['admin', 'server'] });
    const gamerToken = mintToken({ sub: randomUUID(), app, name: 'Fuzz gamer' });
    // The token's application in every {applicationId}, or the catalog would only ever answer 403.
    const dir = mkdtempSync(join(tmpdir(), 'gfts-fuzz-'));
    const configFile = join(dir, 'schemathesis.toml');
    writeFileSync(
      configFile,
      [
        `headers = { Authorization = "Bearer ${token}" }`,
        '[parameters]',
        `"path.applicationId" = "${app}"`,
        // Valid by the schema yet refused with 400 by rules across fields, the stored task or
        // the clock, which each operation's description states (docs/tasks.md has them all).
        '[[operations]]',
        // (putApplicationSettings: a name shaped like a zone that the time-zone database does not know)
        'include-operation-id = ["createApplicationTask", "updateApplicationTask", "setSeason", "putApplicationSettings"]',
        'checks.positive_data_acceptance.expected-statuses = ["2XX", 400, 401, 403, 404, 409, 429]',
        // A WebSocket: an HTTP client's valid request is answered 426 (its 101 needs an upgrade,
        // which the notifications integration tests make).
        '[[operations]]',
        'include-operation-id = ["openNotificationChannel"]',
        'checks.positive_data_acceptance.expected-statuses = [426, 401, 429]',
        '[[operations]]',
        `include-operation-id = ${JSON.stringify(['assignTasks', 'claimTask', ...Object.values(friendshipRoutes).map((r) => r.schema.operationId)])}`,
        `headers = { Authorization = "Bearer ${gamerToken}" }`,
      ].join('\n'),
    );
    const started = Date.now();
    const { code, output } = await run(ST, [
      '--config-file', configFile,
      'run', `${stack.gatewayUrl}/openapi.json`,
      '--url', stack.gatewayUrl,
      '--checks', 'all',
      '--max-examples', EXAMPLES,
      '--seed', SEED,
      // One worker: with two, Hypothesis's lambda descriptions call ast.parse from two threads,
      // which CPython 3.11 answers with "AST constructor recursion depth mismatch" (a Runtime Error).
      '--workers', '1',
    ], dir); // run in the temporary directory: schemathesis writes its .schemathesis cache in cwd
    rmSync(dir, { recursive: true, force: true });
    // The report belongs in the test output whether it passed or not.
    process.stdout.write(`${output}\nschemathesis took ${Math.round((Date.now() - started) / 1000)} s\n`);
    expect(code, output).toBe(0);
  }, 600_000);
});
