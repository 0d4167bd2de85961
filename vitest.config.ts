import { defineConfig } from 'vitest/config';

// Tests run the workspace packages from source: the `@parley/source` export
// condition points each package entry at its src/*.ts (docs/decisions/core-0004).
const conditions = ['@parley/source'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: [
      'packages/*/src/**/*.test.{ts,tsx}',
      'packages/*/test/**/*.test.ts',
      'docs/**/*.test.ts',
      'scripts/**/*.test.ts',
    ],
    testTimeout: 20_000,
  },
});
