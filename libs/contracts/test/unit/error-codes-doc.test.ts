import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/errors.ts';
import { openApiDocument } from '../../src/openapi.ts';

// docs/client.md's "Error codes" table is the one place a client reads what each code means:
// it must list exactly the codes ErrorCode has, in its order, each with a status.
const doc = readFileSync(fileURLToPath(new URL('../../../../docs/client.md', import.meta.url)), 'utf8');

function table(): { code: string; status: string; meaning: string; action: string }[] {
  const section = doc.split(/^## /m).find((s) => s.startsWith('Error codes\n'));
  if (!section) throw new Error('docs/client.md has no "## Error codes" section');
  return section
    .split('\n')
    .filter((line) => /^\| `/.test(line))
    .map((line) => {
      const [code = '', status = '', meaning = '', action = ''] = line.split('|').slice(1, -1).map((cell) => cell.trim());
      return { code: code.replaceAll('`', ''), status, meaning, action };
    });
}

describe('docs/client.md, Error codes', () => {
  it('lists every ErrorCode once, in the order of errors.ts, and nothing else', () => {
    expect(table().map((row) => row.code)).toEqual(Object.values(ErrorCode));
  });

  it('gives each code its HTTP status, a meaning and what a client does', () => {
    for (const row of table()) {
      expect(row.status, row.code).toMatch(/^[45]\d\d(, [45]\d\d)*$/);
      expect(row.meaning, row.code).not.toBe('');
      expect(row.action, row.code).not.toBe('');
    }
  });

  it('is the enum of the Problem schema\'s code in the OpenAPI document', () => {
    const problem = openApiDocument().components.schemas.Problem as { properties: { code: { enum?: unknown } } };
    expect(problem.properties.code.enum).toEqual(Object.values(ErrorCode));
  });
});
