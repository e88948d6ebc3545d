// Writes every nats-auth.conf (NATS users and permissions) from the contracts' subject
// names and each target's nats-game-servers.txt:
//   node libs/contracts/scripts/write-nats-auth.ts
import { writeFileSync } from 'node:fs';
import { authFile, expectedNatsAuth, natsAuthTargets } from './nats-auth-targets.ts';

for (const target of natsAuthTargets) {
  writeFileSync(authFile(target.dir), expectedNatsAuth(target));
  console.log(`wrote ${target.dir}/nats-auth.conf`);
}
