#!/usr/bin/env node
// Mints an HS256 bearer token for local calls, with no dependencies (any Node version).
//   node scripts/mint-token.mjs [--sub UUID] [--app UUID] [--name NAME] [--picture URL]
//                              [--roles admin,server] [--ttl SECONDS] [--secret SECRET]
// The secret defaults to $JWT_SECRET, then to the documented development secret.
// An unknown option (`--role`), a non-UUID --sub or --app, or a role other than admin and
// server is refused with the usage (exit 2): the gateway would refuse such a token (401),
// or take it without the role meant.
import { createHmac, randomUUID } from 'node:crypto';

const DEV_SECRET = 'dev-only-secret-change-me-0123456789abcdef';
const DEV_APP = '00000000-0000-4000-8000-000000000001';

const USAGE = `usage: node scripts/mint-token.mjs [--sub UUID] [--app UUID] [--name NAME] [--picture URL] [--roles r1,r2] [--ttl SECONDS] [--secret S]
Prints an HS256 bearer token for the local stack (scripts/stack.sh) on stdout.
  --sub     the gamer id, a UUID (default: a random UUID)
  --app     the application id, a UUID (default: ${DEV_APP})
  --name    display name claim; --picture avatar URL claim
  --roles   comma-separated: admin (manages the task catalog), server (reports stats)
  --ttl     seconds until it expires (default 3600)
  --secret  HS256 secret (default: $JWT_SECRET, then the documented development secret)
Example: TOKEN=$(node scripts/mint-token.mjs --name Ann)`;

const OPTIONS = new Set(['sub', 'app', 'name', 'picture', 'roles', 'ttl', 'secret']);
const ROLES = new Set(['admin', 'server']);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One line saying what is wrong, then the usage, on stderr; exit 2. */
function refuse(message) {
  console.error(`mint-token: ${message}\n\n${USAGE}`);
  process.exit(2);
}

const args = new Map();
const argv = process.argv.slice(2);
if (argv.includes('--help') || argv.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}
for (let i = 0; i < argv.length; i++) {
  const key = argv[i];
  if (!key.startsWith('--')) refuse(`unexpected argument ${JSON.stringify(key)} (each option is --option value)`);
  const name = key.slice(2);
  if (!OPTIONS.has(name)) refuse(`unknown option ${key}`);
  const value = argv[i + 1];
  if (value === undefined || (value.startsWith('--') && OPTIONS.has(value.slice(2)))) refuse(`${key} needs a value`);
  args.set(name, value);
  i += 1;
}
for (const name of ['sub', 'app']) {
  if (args.has(name) && !UUID.test(args.get(name))) refuse(`--${name} must be a UUID (the gateway refuses other ids with 401), not ${JSON.stringify(args.get(name))}`);
}
const unknownRoles = (args.get('roles') ?? '').split(',').filter((role) => role && !ROLES.has(role));
if (unknownRoles.length > 0) refuse(`--roles takes admin and server only, not ${unknownRoles.join(', ')}`);

const ttlText = args.get('ttl') ?? '3600';
const ttl = Number(ttlText);
if (!/^-?\d+$/.test(ttlText)) refuse(`--ttl must be a whole number of seconds, not ${JSON.stringify(args.get('ttl'))}`);
const now = Math.floor(Date.now() / 1000);
const claims = {
  sub: args.get('sub') ?? randomUUID(),
  app: args.get('app') ?? DEV_APP,
  iat: now,
  exp: now + ttl,
};
if (args.has('name')) claims.name = args.get('name');
if (args.has('picture')) claims.picture = args.get('picture');
if (args.has('roles')) claims.roles = args.get('roles').split(',').filter(Boolean);

const b64 = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
const unsigned = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`;
const secret = args.get('secret') ?? process.env.JWT_SECRET ?? DEV_SECRET;
const signature = createHmac('sha256', secret).update(unsigned).digest('base64url');
process.stdout.write(`${unsigned}.${signature}\n`);
