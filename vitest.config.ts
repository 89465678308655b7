import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/ingest/**/*.test.ts', 'test/match/**/*.test.ts'],
        },
      },
      {
        // The suites for the check, keys, rules, ingest (with a killed ingest), DNU, batch (with a killed worker),
        // the snapshot switch's cache carry-over, and the identity history and signals again, against a private 3-master
        // Redis Cluster started once for the run. The overrides and per-account monitoring suites pass there alone but
        // share its key space with the ingest suites when run together, so they run on the single Redis only.
        test: {
          name: 'cluster',
          include: [
            'test/integration/http-eligibility.test.ts', 'test/integration/cli-keys-rules.test.ts',
            'test/integration/ingest.test.ts', 'test/integration/batch-api.test.ts', 'test/integration/batch-crash.test.ts',
            'test/integration/batch-pinning.test.ts', 'test/integration/dnu-incremental.test.ts',
            'test/integration/cache-carry-over.test.ts', 'test/integration/identity-history.test.ts',
            'test/integration/identity-signals.test.ts', 'test/cluster/**/*.test.ts',
          ],
          globalSetup: ['test/helpers/cluster-setup.ts'],
          setupFiles: ['test/helpers/cluster-env.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/helpers/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        // The HTTP contract again on the second engine (HTTP_ENGINE=node, node:http): the adapter, the check's
        // answers, raw-socket framing, the access line and SIGTERM draining must match the uws engine's.
        // .ci/run runs this project under Node 24 too.
        test: {
          name: 'http-node',
          include: [
            'test/integration/uws-adapter.test.ts', 'test/integration/http-eligibility.test.ts',
            'test/integration/http-framing.test.ts', 'test/integration/access-line.test.ts',
            'test/integration/graceful-shutdown.test.ts', 'test/integration/listen.test.ts',
          ],
          env: { HTTP_ENGINE: 'node' },
          globalSetup: ['test/helpers/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        // The compliance console in Debian's Chromium (playwright-core), against a real service and Redis.
        test: {
          name: 'console',
          include: ['test/console/**/*.test.ts'],
          globalSetup: ['test/helpers/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 90_000,
        },
      },
    ],
  },
});
