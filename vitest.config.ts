import { availableParallelism } from 'node:os'
import tailwindcss from '@tailwindcss/vite'
import { playwright } from '@vitest/browser-playwright'
import { defaultClientConditions } from 'vite'
import { defineConfig } from 'vitest/config'
import { reactAliases } from './apps/widget/preact.ts'
// By path: Vite loads a config's packages with Node, which runs no TypeScript.
import { origins, relayUrl } from './packages/dev-stack/src/stack.ts'
import { chromiumArgs } from './playwright.config.js'

/** The build-time settings the widget and frame builds take from the dev stack when unset. */
const devBuildEnv = {
  VITE_API_URL: origins.api,
  VITE_SECURE_FRAME_URL: origins.secure,
  VITE_WALLETCONNECT_RELAY_URL: relayUrl,
  VITE_WIDGET_ORIGIN: origins.widget,
}

/** Vitest's browser mode in the Chromium the e2e tests use (a new object per project: Vitest names its instances). */
const chromium = () => ({
  enabled: true,
  headless: true,
  provider: playwright({
    launchOptions: { executablePath: '/usr/bin/chromium', args: chromiumArgs },
  }),
  instances: [{ browser: 'chromium' as const }],
  screenshotFailures: false,
})

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
      {
        test: {
          name: 'widget',
          root: 'apps/widget',
          include: ['src/**/*.test.ts'],
          env: devBuildEnv,
        },
      },
      {
        // Component tests of the views, in the Chromium the e2e tests use (real focus and layout).
        plugins: [tailwindcss()],
        resolve: { alias: reactAliases },
        optimizeDeps: {
          include: [
            'preact/compat',
            'preact/compat/client',
            'preact/jsx-runtime',
            'vitest-browser-react',
            'wagmi',
            'wagmi/actions',
            'viem',
            'viem/accounts',
            'viem/actions',
            'viem/ens',
          ],
        },
        test: {
          name: 'widget-views',
          root: 'apps/widget',
          include: ['src/**/*.test.tsx'],
          env: devBuildEnv,
          // One file at a time: the files share one browser page, and only one can hold the focus.
          fileParallelism: false,
          // The local Solana node for the Solana views (`test/solanaNode.setup.ts`).
          globalSetup: ['test/solanaNode.setup.ts'],
          browser: {
            // The page cannot call the node (it sends no CORS headers): the test runner does.
            commands: {
              async solanaRpc(_context, url: string, body: string): Promise<string> {
                const response = await fetch(url, {
                  method: 'POST',
                  headers: { 'content-type': 'application/json' },
                  body,
                })
                return response.text()
              },
            },
            ...chromium(),
          },
        },
      },
      {
        // @porthole/react against real React (no Preact alias), the loader from its source.
        resolve: { conditions: ['@porthole/source', ...defaultClientConditions] },
        optimizeDeps: { include: ['react', 'react-dom/client', 'vitest-browser-react'] },
        test: {
          name: 'react',
          root: 'packages/react',
          include: ['src/**/*.test.tsx'],
          browser: chromium(),
        },
      },
      {
        test: {
          name: 'secure-frame',
          root: 'apps/secure-frame',
          include: ['src/**/*.test.ts', 'server/**/*.test.ts'],
          env: devBuildEnv,
        },
      },
      {
        test: {
          name: 'dev-stack',
          root: 'packages/dev-stack',
          include: ['src/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
})
