import { defineConfig } from '@playwright/test'

// Playwright disables ThirdPartyStoragePartitioning; a later --disable-features
// wins, so we pass its list without that feature: cross-site frames then get
// partitioned storage as in real Chrome (ENVIRONMENT.md).
const disabledFeatures = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
]

export const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  `--disable-features=${disabledFeatures.join(',')}`,
]

export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  outputDir: 'test-results',
  timeout: 30_000,
  expect: { timeout: 10_000 },
  fullyParallel: true,
  // Three on CI's two cores: much of an e2e test is waiting (mail, blocks,
  // the 30 s between two mails to one address), which a third worker fills.
  workers: 3,
  forbidOnly: !!process.env.CI,
  reporter: process.env.CI ? [['list']] : [['list']],
  use: {
    baseURL: 'http://127.0.0.1:5170',
    browserName: 'chromium',
    launchOptions: { executablePath: '/usr/bin/chromium', args: chromiumArgs },
    trace: 'retain-on-failure',
  },
  projects: [
    { name: 'chromium', testIgnore: '**/*.alone.spec.ts' },
    // Specs that change the shared stack for everyone (anvil's automine off) run
    // after all the others, one at a time. Alone: `npx playwright test --no-deps <file>`.
    {
      name: 'alone',
      testMatch: '**/*.alone.spec.ts',
      dependencies: ['chromium'],
      fullyParallel: false,
    },
  ],
  webServer: {
    command: 'npx tsx scripts/start.ts',
    env: { PORTHOLE_E2E: '1' },
    url: 'http://127.0.0.1:5170/health',
    reuseExistingServer: !process.env.CI,
    timeout: 180_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
})
