import { defineConfig } from '@playwright/test'
import { chromiumArgs } from './playwright.config.ts'

/**
 * `npm run test:prod`: the production profile behind nginx with TLS
 * (e2e-prod/stack.ts starts it; the built files must exist: `npm run build`).
 */
export default defineConfig({
  testDir: 'e2e-prod',
  testMatch: '**/*.spec.ts',
  outputDir: 'test-results/prod',
  globalSetup: './e2e-prod/stack.ts',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: true,
  workers: 2,
  forbidOnly: !!process.env.CI,
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      // Every *.test name is this machine; the certificate is pinned per worker (e2e-prod/fixtures.ts).
      args: [...chromiumArgs, '--host-resolver-rules=MAP *.test 127.0.0.1'],
    },
    trace: 'retain-on-failure',
  },
})
