import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    projects: [
      { test: { name: 'protocol', root: 'packages/protocol', include: ['src/**/*.test.ts'] } },
      { test: { name: 'chains', root: 'packages/chains', include: ['src/**/*.test.ts'] } },
      {
        test: {
          name: 'loader',
          root: 'packages/loader',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'api',
          root: 'apps/api',
          include: ['src/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      { test: { name: 'widget', root: 'apps/widget', include: ['src/**/*.test.ts'] } },
      { test: { name: 'secure-frame', root: 'apps/secure-frame', include: ['src/**/*.test.ts'] } },
      {
        test: {
          name: 'e2e-support',
          root: 'e2e/support',
          include: ['*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
})
