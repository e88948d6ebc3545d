import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { apiTypes } from '../../scripts/api-types.ts';

describe('the console\'s typed API client', () => {
  it('is generated from the current contracts (run `pnpm api-types` after `pnpm openapi`)', async () => {
    const committed = readFileSync(fileURLToPath(new URL('../../src/api/openapi.ts', import.meta.url)), 'utf8');
    expect(committed).toBe(await apiTypes());
  });
});
