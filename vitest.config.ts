import { defineConfig } from 'vitest/config';

// Two projects: unit tests of pure rules (no I/O, run anywhere) and integration tests
// against real MongoDB-compatible and NATS servers started by testcontainers.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['{libs,services,apps,bench}/**/test/unit/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'integration',
          include: ['{libs,services,apps}/**/test/integration/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['libs/testkit/src/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // a 2-core CI machine also runs the containers
          maxWorkers: 2,
        },
      },
    ],
  },
});
