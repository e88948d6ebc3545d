import { openApiDocument } from '@gfts/contracts/openapi';
import openapiTS, { astToString } from 'openapi-typescript';

const HEADER = '// Generated from docs/openapi.json by apps/console/scripts/write-api-types.ts; do not edit.\n\n';

/** The API's TypeScript types (paths, components) as openapi-typescript writes them. */
export async function apiTypes(): Promise<string> {
  const document = openApiDocument();
  // paths sorted: the contracts' route order differs between Node's and vitest's module loading
  const paths = Object.fromEntries(Object.entries(document.paths).sort(([a], [b]) => a.localeCompare(b)));
  const ast = await openapiTS({ ...document, paths } as unknown as Parameters<typeof openapiTS>[0]);
  return HEADER + astToString(ast);
}
