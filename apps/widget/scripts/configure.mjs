#!/usr/bin/env node
/**
 * Points a built widget at a deployment, without rebuilding: rewrites the
 * settings of `index.html` (its CSP and the porthole-config block,
 * runtimeConfig.mjs). Plain Node, no dependencies.
 *
 *   node apps/widget/scripts/configure.mjs --dist apps/widget/dist \
 *     --api-url https://api.example.com --secure-frame-url https://secure.example.com \
 *     --relay-url wss://relay.walletconnect.org --walletconnect-project-id <id> [--out FILE]
 *
 * Writes `<dist>/index.html` in place, or FILE. Exits 1 with one line naming
 * the bad setting; nothing is written then.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { configureHtml } from '../runtimeConfig.mjs'

try {
  const { values } = parseArgs({
    options: {
      dist: { type: 'string' },
      out: { type: 'string' },
      'api-url': { type: 'string' },
      'secure-frame-url': { type: 'string' },
      'relay-url': { type: 'string' },
      'walletconnect-project-id': { type: 'string' },
    },
    strict: true,
  })
  if (!values.dist)
    throw new Error('--dist is required: the built widget folder (apps/widget/dist)')
  const page = join(values.dist, 'index.html')
  const html = configureHtml(readFileSync(page, 'utf8'), {
    apiUrl: values['api-url'],
    secureFrameUrl: values['secure-frame-url'],
    walletConnectRelayUrl: values['relay-url'],
    walletConnectProjectId: values['walletconnect-project-id'],
  })
  writeFileSync(values.out ?? page, html)
  process.stdout.write(`Configured ${values.out ?? page}\n`)
} catch (error) {
  process.stderr.write(`Error: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exitCode = 1
}
