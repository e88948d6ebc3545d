// Writes every nats-auth.conf (NATS users and permissions) from the contracts' subject
// names and each target's nats-game-servers.txt:
//   node libs/contracts/scripts/write-nats-auth.ts
// --help prints what it writes, and writes nothing.
import { writeFileSync } from 'node:fs';
import { authFile, expectedNatsAuth, natsAuthTargets } from './nats-auth-targets.ts';
import { takeNoArguments } from './no-arguments.ts';

const USAGE = `usage: node libs/contracts/scripts/write-nats-auth.ts
Writes the NATS users and permissions (libs/contracts/src/nats-permissions.ts, with each
directory's nats-game-servers.txt) to ${natsAuthTargets.map((t) => `${t.dir}/nats-auth.conf`).join(' and ')}.`;

takeNoArguments(USAGE);
for (const target of natsAuthTargets) {
  writeFileSync(authFile(target.dir), expectedNatsAuth(target));
  console.log(`wrote ${target.dir}/nats-auth.conf`);
}
