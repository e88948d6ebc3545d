// Writes libs/client/src/generated/openapi.ts from docs/openapi.json. Part of `pnpm openapi`;
// on its own: `pnpm --filter @gfts/client generate`. --help prints this header.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { GENERATED_TYPES, typesFromOpenApi } from './openapi-types.ts';

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log('usage: node libs/client/scripts/generate-types.ts\nWrites libs/client/src/generated/openapi.ts from docs/openapi.json (openapi-typescript).');
  process.exit(0);
}
mkdirSync(dirname(GENERATED_TYPES), { recursive: true });
writeFileSync(GENERATED_TYPES, await typesFromOpenApi());
console.log(`wrote ${GENERATED_TYPES}`);
