/**
 * Switches for debugging integration tests, read from the environment here and nowhere else
 * (docs/operations.md, "How to debug a failing integration test").
 *
 *   GFTS_TEST_LOG_LEVEL   LOG_LEVEL of the services the test stacks build in-process
 *                         (default `silent`; `info` shows their access and error lines)
 *   GFTS_KEEP_CONTAINERS  `1`: the global teardown leaves the database and NATS containers
 *                         running and prints their names, URLs and the command to remove them
 */

/** The levels the services' LOG_LEVEL takes (libs/platform/src/config.ts). */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type TestLogLevel = (typeof LOG_LEVELS)[number];

/** LOG_LEVEL for a service a test stack builds: GFTS_TEST_LOG_LEVEL, else `silent`. */
export function testLogLevel(): TestLogLevel {
  const level = process.env.GFTS_TEST_LOG_LEVEL;
  if (level === undefined || level === '') return 'silent';
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new Error(`GFTS_TEST_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got ${JSON.stringify(level)}`);
  }
  return level as TestLogLevel;
}

/** Whether the global teardown leaves the containers running (GFTS_KEEP_CONTAINERS=1). */
export function keepContainers(): boolean {
  return process.env.GFTS_KEEP_CONTAINERS === '1';
}
