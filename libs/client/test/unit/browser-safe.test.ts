import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));
const sources = (readdirSync(SRC, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => join(SRC, f));

describe('the client runs in browsers as well as in Node', () => {
  // A browser bundle can take only web APIs (fetch, URL, WebSocket) and browser-safe packages.
  it('imports no Node built-in and no package but openapi-fetch', () => {
    expect(sources.length).toBeGreaterThan(5);
    for (const file of sources) {
      const imports = [...readFileSync(file, 'utf8').matchAll(/^(?:import|export)[^'"]*from\s+'([^']+)'/gm)].map((m) => m[1]!);
      for (const specifier of imports) expect(specifier.startsWith('.') || specifier === 'openapi-fetch', `${file}: ${specifier}`).toBe(true);
    }
  });

  it('touches Node globals only behind a check', () => {
    expect(sources.length).toBeGreaterThan(5);
    for (const file of sources) {
      const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      expect(/\b(Buffer|require|__dirname)\b/.test(text), file).toBe(false);
      // the one use of process: choosing header auth where WebSocket takes headers
      for (const match of text.matchAll(/\bprocess\b/g)) expect(text.slice(Math.max(0, match.index - 40), match.index + 40), file).toMatch(/runtime\.process\?\.|process\?: /);
    }
  });
});
