// Writes docs/openapi.json from the contracts' route tables: `pnpm openapi`.
// --help prints what it writes, and writes nothing.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openApiDocument } from '../src/openapi.ts';
import { takeNoArguments } from './no-arguments.ts';

const USAGE = `usage: node libs/contracts/scripts/write-openapi.ts
Writes docs/openapi.json (OpenAPI 3.1) from the contracts' route tables (libs/contracts/src).
\`pnpm openapi\` runs it, then libs/client/scripts/generate-types.ts.`;

takeNoArguments(USAGE);
const target = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));
writeFileSync(target, `${JSON.stringify(openApiDocument(), null, 2)}\n`);
console.log(`wrote ${target}`);
