// The client's request and response types, generated from the OpenAPI document by
// openapi-typescript. Shared by `pnpm openapi` (which writes them) and the unit test that
// checks the committed file is what the committed document generates.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';

export const OPENAPI_DOCUMENT = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));
export const GENERATED_TYPES = fileURLToPath(new URL('../src/generated/openapi.ts', import.meta.url));

const BANNER = `${COMMENT_HEADER}// Source: docs/openapi.json. Regenerate with \`pnpm openapi\` (contracts -> document -> these types).\n\n`;

/** The TypeScript source of the document's `paths`, `components` and `operations` types. */
export async function typesFromOpenApi(document: OpenAPI3 = JSON.parse(readFileSync(OPENAPI_DOCUMENT, 'utf8')) as OpenAPI3): Promise<string> {
  // silent: the library's warnings (none today) would otherwise go to stdout mid-test
  const ast = await openapiTS(document, { silent: true, alphabetize: true });
  return `${BANNER}${astToString(ast)}`;
}
