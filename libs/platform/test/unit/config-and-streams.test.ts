import { JetStreamApiError, type JetStreamManager } from '@nats-io/jetstream';
import { describe, expect, it } from 'vitest';
import { BaseConfig, ConfigError, GamersStreamConfig, loadConfig, presenceHeartbeatProblems } from '../../src/config.ts';
import { ensureStream } from '../../src/jetstream-streams.ts';

const secret = { INTERNAL_TOKEN_SECRET: 'x'.repeat(32) };
const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadConfig(BaseConfig, { ...secret, ...env });
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
};

describe('loadConfig', () => {
  it('takes a whole number setting in decimal digits only', () => {
    expect(loadConfig(BaseConfig, { ...secret, SHUTDOWN_GRACE_MS: '2500' }).SHUTDOWN_GRACE_MS).toBe(2500);
    for (const typo of ['0x1F90', '1e3', ' 2 ', '2.5']) {
      expect(problemsOf({ SHUTDOWN_GRACE_MS: typo })).toEqual([`SHUTDOWN_GRACE_MS must be a whole number in decimal digits (got ${JSON.stringify(typo)})`]);
    }
  });

  it('refuses a whole number past 2^53, where it is no longer exact, naming the setting', () => {
    for (const huge of ['9007199254740993', '99999999999999999999', '-9007199254740993']) {
      expect(problemsOf({ SHUTDOWN_GRACE_MS: huge })).toEqual([`SHUTDOWN_GRACE_MS must be between -9007199254740991 and 9007199254740991 (got ${JSON.stringify(huge)})`]);
    }
    const { GAMERS_STREAM_MAX_BYTES } = loadConfig(GamersStreamConfig, { GAMERS_STREAM_MAX_BYTES: '9007199254740991' });
    expect(GAMERS_STREAM_MAX_BYTES).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => loadConfig(GamersStreamConfig, { GAMERS_STREAM_MAX_BYTES: '99999999999999999999' })).toThrow(ConfigError);
  });

  it('takes a blank setting as unset: its default applies, or it is named missing', () => {
    const defaults = loadConfig(BaseConfig, secret);
    expect(loadConfig(BaseConfig, { ...secret, SHUTDOWN_GRACE_MS: '   ' }).SHUTDOWN_GRACE_MS).toBe(defaults.SHUTDOWN_GRACE_MS);
    expect(problemsOf({ INTERNAL_TOKEN_SECRET: '  ' })).toEqual(['INTERNAL_TOKEN_SECRET is required']);
  });
});

describe('ensureStream', () => {
  const apiError = (code: number, description: string) => new JetStreamApiError({ code: 400, err_code: code, description });
  /** A manager whose stream does not exist and whose add fails with `addError`; records an update. */
  const manager = (addError: Error) => {
    const calls: string[] = [];
    const jsm = {
      streams: {
        info: async () => {
          throw apiError(10059, 'stream not found');
        },
        add: async () => {
          calls.push('add');
          throw addError;
        },
        update: async () => {
          calls.push('update');
          throw apiError(10059, 'stream not found');
        },
      },
    } as unknown as JetStreamManager;
    return { jsm, calls };
  };

  it('reports why the stream could not be created, not the update that would follow', async () => {
    const { jsm, calls } = manager(apiError(10074, 'insufficient resources'));
    await expect(ensureStream(jsm, 'S', { subjects: ['s.>'] })).rejects.toThrow('insufficient resources');
    expect(calls).toEqual(['add']);
  });

  it('updates a stream another replica created in between', async () => {
    const { jsm, calls } = manager(apiError(10058, 'stream name already in use with a different configuration'));
    await expect(ensureStream(jsm, 'S', { subjects: ['s.>'] })).rejects.toThrow('stream not found');
    expect(calls).toEqual(['add', 'update']);
  });
});

describe('presenceHeartbeatProblems', () => {
  it('takes two beats or more per online window, and names both settings otherwise', () => {
    expect(presenceHeartbeatProblems(15_000, 60_000)).toEqual([]);
    expect(presenceHeartbeatProblems(30_000, 60_000)).toEqual([]);
    const [problem] = presenceHeartbeatProblems(30_001, 60_000);
    expect(problem).toMatch(/PRESENCE_RECORD_INTERVAL_MS.*30001.*PRESENCE_ONLINE_WINDOW_MS.*60000/);
    expect(presenceHeartbeatProblems(120_000, 60_000)).toHaveLength(1);
  });
});
