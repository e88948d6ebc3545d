#!/usr/bin/env node
// Mints an HS256 bearer token for local calls, with no dependencies (any Node version).
//   node scripts/mint-token.mjs [--sub UUID] [--app UUID] [--name NAME] [--picture URL]
//                              [--roles admin,server] [--ttl SECONDS] [--secret SECRET]
// The secret defaults to $JWT_SECRET, then to the documented development secret.
import { createHmac, randomUUID } from 'node:crypto';

const DEV_SECRET = 'dev-only-secret-change-me-0123456789abcdef';
const DEV_APP = '00000000-0000-4000-8000-000000000001';

const USAGE = `usage: node scripts/mint-token.mjs [--sub UUID] [--app UUID] [--name NAME] [--picture URL] [--roles r1,r2] [--ttl SECONDS] [--secret S]
Prints an HS256 bearer token for the local stack (scripts/stack.sh) on stdout.
  --sub     the gamer id (default: a random UUID)
  --app     the application id (default: ${DEV_APP})
  --name    display name claim; --picture avatar URL claim
  --roles   comma-separated: admin (manages the task catalog), server (reports stats)
  --ttl     seconds until it expires (default 3600)
  --secret  HS256 secret (default: $JWT_SECRET, then the documented development secret)
Example: TOKEN=$(node scripts/mint-token.mjs --name Ann)`;

const args = new Map();
const argv = process.argv.slice(2);
if (argv.includes('--help') || argv.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}
for (let i = 0; i < argv.length; i++) {
  const key = argv[i];
  if (!key.startsWith('--') || i + 1 >= argv.length) {
    console.error(USAGE);
    process.exit(2);
  }
  args.set(key.slice(2), argv[++i]);
}

const ttlText = args.get('ttl') ?? '3600';
const ttl = Number(ttlText);
if (!/^-?\d+$/.test(ttlText)) {
  console.error(`--ttl must be a whole number of seconds, not ${JSON.stringify(args.get('ttl'))}\n\n${USAGE}`);
  process.exit(2);
}
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
