import { availableParallelism } from 'node:os'
import tailwindcss from '@tailwindcss/vite'
import { playwright } from '@vitest/browser-playwright'
import { defineConfig } from 'vitest/config'
import { chromiumArgs } from './playwright.config.js'

export default defineConfig({
  test: {
    // Vitest's default is one worker less than the cores: one worker on the
    // two-core machines CI runs on. Many of our tests wait on child processes,
    // PGlite and sockets, so two workers there cut the run by about a third.
    maxWorkers: Math.max(2, availableParallelism() - 1),
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
      {
        // Component tests of the views, in the Chromium the e2e tests use (real focus and layout).
        plugins: [tailwindcss()],
        optimizeDeps: {
          include: ['react', 'react-dom/client', 'wagmi', 'wagmi/actions', 'viem', 'viem/accounts'],
        },
        test: {
          name: 'widget-views',
          root: 'apps/widget',
          include: ['src/**/*.test.tsx'],
          // One file at a time: the files share one browser page, and only one can hold the focus.
          fileParallelism: false,
          browser: {
            enabled: true,
            headless: true,
            provider: playwright({
              launchOptions: { executablePath: '/usr/bin/chromium', args: chromiumArgs },
            }),
            instances: [{ browser: 'chromium' }],
            screenshotFailures: false,
          },
        },
      },
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
