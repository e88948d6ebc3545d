import { afterEach, describe, expect, it, vi } from 'vitest';
import { storeEngineOf } from '../../src/containers.ts';
import { keepContainers, testLogLevel } from '../../src/debug.ts';

describe('the debugging switches of the integration tests', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('keeps the services silent unless GFTS_TEST_LOG_LEVEL names a level', () => {
    vi.stubEnv('GFTS_TEST_LOG_LEVEL', undefined);
    expect(testLogLevel()).toBe('silent');
    vi.stubEnv('GFTS_TEST_LOG_LEVEL', '');
    expect(testLogLevel()).toBe('silent');
    vi.stubEnv('GFTS_TEST_LOG_LEVEL', 'info');
    expect(testLogLevel()).toBe('info');
  });

  it('refuses a level the services do not take, naming the variable', () => {
    vi.stubEnv('GFTS_TEST_LOG_LEVEL', 'verbose');
    expect(() => testLogLevel()).toThrow(/GFTS_TEST_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent/);
  });

  it('keeps the containers only with GFTS_KEEP_CONTAINERS=1', () => {
    vi.stubEnv('GFTS_KEEP_CONTAINERS', undefined);
    expect(keepContainers()).toBe(false);
    vi.stubEnv('GFTS_KEEP_CONTAINERS', 'true');
    expect(keepContainers()).toBe(false);
    vi.stubEnv('GFTS_KEEP_CONTAINERS', '1');
    expect(keepContainers()).toBe(true);
  });
});

describe('the store of a run', () => {
  it('is FerretDB for an image with ferretdb in its name, MongoDB otherwise', () => {
    expect(storeEngineOf('localhost/gfts/ferretdb:1.24.2-3695862062')).toBe('ferretdb');
    expect(storeEngineOf('ghcr.io/ferretdb/ferretdb:1.24')).toBe('ferretdb');
    expect(storeEngineOf('mongo:7')).toBe('mongodb');
    expect(storeEngineOf('registry.example/mongo:8.0')).toBe('mongodb');
  });
});
