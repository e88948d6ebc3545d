// Writes src/api/openapi.ts, the console's typed view of the API, from the contracts'
// OpenAPI document (the same one as docs/openapi.json) with openapi-typescript:
//   pnpm --filter @gfts/console api-types
// A unit test (test/unit/api-types.test.ts) fails when it is out of date.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { apiTypes } from './api-types.ts';

const out = fileURLToPath(new URL('../src/api/openapi.ts', import.meta.url));
writeFileSync(out, await apiTypes());
console.log(`wrote ${out}`);
