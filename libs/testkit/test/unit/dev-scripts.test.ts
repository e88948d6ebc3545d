import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The developer scripts' command lines: a mistake gets one clear line (and the usage), never
// a stack trace or a silently wrong result.
const root = fileURLToPath(new URL('../../../../', import.meta.url));
const run = (command: string, args: string[]) => {
  const result = spawnSync(command, args, { cwd: root, encoding: 'utf8', timeout: 30_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
};

/** A local port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('scripts/demo.sh', () => {
  it('says in one line that the gateway cannot be reached, and exits 1', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const { status, stdout, stderr } = run('bash', ['scripts/demo.sh', url]);
    expect(status).toBe(1);
    expect(stderr.trim()).toBe(`cannot reach ${url}: is scripts/stack.sh running?`);
    expect(stdout).toBe('');
  });

  it('refuses a URL without a scheme, an unknown option and a second argument with the usage', () => {
    for (const [args, message] of [
      [['localhost:8080'], 'the gateway URL must start with http:// or https:// (got localhost:8080)'],
      [['--port', '8080'], 'unknown option --port'],
      [['http://localhost:1', 'extra'], 'one argument at most'],
    ] as const) {
      const { status, stderr } = run('bash', ['scripts/demo.sh', ...args]);
      expect(status, args.join(' ')).toBe(2);
      expect(stderr, args.join(' ')).toContain(message);
      expect(stderr, args.join(' ')).toContain('scripts/demo.sh [gateway-url]');
      expect(stderr, args.join(' ')).not.toMatch(/\n\s+at /);
    }
  });

  it('scripts/demo.ts alone checks the same', () => {
    const { status, stderr } = run(process.execPath, ['scripts/demo.ts', 'localhost:8080']);
    expect(status).toBe(2);
    expect(stderr).toContain('must start with http:// or https://');
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});

describe('scripts/stack.sh', () => {
  it('refuses an argument, before it installs or starts anything, naming the environment variables instead', () => {
    const { status, stdout, stderr } = run('bash', ['scripts/stack.sh', '--port', '9090']);
    expect(status).toBe(2);
    expect(stderr).toContain('scripts/stack.sh takes no arguments, got: --port 9090');
    expect(stderr).toContain('GATEWAY_PORT=9090 scripts/stack.sh');
    expect(stdout).toBe('');
  });
});

describe('scripts/mint-token.mjs', () => {
  const mint = (...args: string[]) => run(process.execPath, ['scripts/mint-token.mjs', ...args]);
  const claims = (token: string) => JSON.parse(Buffer.from(token.trim().split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;

  it('refuses an unknown option, a non-UUID --sub or --app, an unknown role and a missing value, with the usage', () => {
    for (const [args, message] of [
      [['--role', 'admin'], 'unknown option --role'],
      [['--sub', 'player42'], '--sub must be a UUID'],
      [['--app', 'my-game'], '--app must be a UUID'],
      [['--roles', 'admn'], '--roles takes admin and server only, not admn'],
      [['--name'], '--name needs a value'],
      [['--name', '--roles', 'admin'], '--name needs a value'],
      [['Ann'], 'unexpected argument "Ann"'],
    ] as const) {
      const { status, stdout, stderr } = mint(...args);
      expect(status, args.join(' ')).toBe(2);
      expect(stdout, args.join(' ')).toBe('');
      expect(stderr, args.join(' ')).toContain(message);
      expect(stderr, args.join(' ')).toContain('usage: node scripts/mint-token.mjs');
    }
  });

  it('mints the claims asked for, and answers --help', () => {
    const sub = '00000000-0000-4000-8000-00000000000a';
    const { status, stdout } = mint('--sub', sub, '--app', '00000000-0000-4000-8000-000000000002', '--roles', 'admin,server', '--name', 'Ann');
    expect(status).toBe(0);
    expect(claims(stdout)).toMatchObject({ sub, app: '00000000-0000-4000-8000-000000000002', roles: ['admin', 'server'], name: 'Ann' });
    expect(mint('--help')).toMatchObject({ status: 0, stdout: expect.stringContaining('usage: node scripts/mint-token.mjs') });
  });
});

describe('scripts/provision.sh', () => {
  it('finds a working Docker on a machine without `timeout` (macOS)', () => {
    const bin = mkdtempSync(join(tmpdir(), 'gfts-nobin-'));
    try {
      // a docker that answers `docker info`, and nothing else on PATH: no timeout
      writeFileSync(join(bin, 'docker'), '#!/bin/sh\n[ "$1" = info ] && exit 0\nexit 1\n', { mode: 0o755 });
      const probe = `source scripts/provision.sh >/dev/null 2>&1; PATH=${bin}; command -v timeout >/dev/null && exit 3; _gfts_docker_works && echo docker-works`;
      const { status, stdout } = run('bash', ['-c', probe]);
      expect(status).toBe(0);
      expect(stdout.trim()).toBe('docker-works');
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});
