/**
 * One build, any deployment (issue 15): the settings a built page carries,
 * rewritten by runtimeConfig.mjs's `configureHtml` (and its command line,
 * scripts/configure.mjs), and read by the app (lib/runtimeConfig.ts).
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { configTags, configureHtml, widgetCsp } from '../runtimeConfig.mjs'
import { readRuntimeConfig } from './lib/runtimeConfig.js'

const dev = {
  apiUrl: 'http://api.localhost:5173',
  secureFrameUrl: 'http://secure.localhost:5172',
  walletConnectRelayUrl: 'ws://127.0.0.1:5174',
  walletConnectProjectId: 'porthole-local',
}
const deployed = {
  apiUrl: 'https://api.example.com/',
  secureFrameUrl: 'https://secure.example.com',
  walletConnectRelayUrl: 'wss://relay.walletconnect.org',
  walletConnectProjectId: 'abc123',
}
/** A built page's head, as `vite build` writes it (vite.config.ts's runtimeConfig plugin). */
const built = `<!doctype html><html><head>
    <meta charset="UTF-8" />
    ${configTags(dev)}
    <script type="module" async src="/assets/prefetch-x.js"></script>
  </head><body><div id="root"></div></body></html>`

/** A document holding `html`, as far as readRuntimeConfig looks (its one element by id). */
const documentOf = (html: string) => ({
  getElementById: (id: string) => {
    const block = new RegExp(`<script type="application/json" id="${id}">([^<]*)</script>`).exec(
      html,
    )
    return block ? ({ textContent: block[1] ?? '' } as HTMLElement) : null
  },
})

/** The settings block of `html`, as the app reads it. */
const readBack = (html: string) => readRuntimeConfig(documentOf(html))

describe('configureHtml', () => {
  test("replaces the settings and the CSP: nothing of the build's own origins is left", () => {
    const html = configureHtml(built, deployed)
    expect(readBack(html)).toEqual({ ...deployed, apiUrl: 'https://api.example.com' })
    const csp = /content="([^"]*)"/.exec(html)?.[1]
    expect(csp).toBe(widgetCsp({ ...deployed, apiUrl: 'https://api.example.com' }))
    expect(csp).toContain(
      "connect-src 'self' https://api.example.com wss://relay.walletconnect.org",
    )
    expect(csp).toContain('frame-src https://secure.example.com')
    expect(html).not.toMatch(/localhost/)
    // The rest of the page is as built; a second run changes settings again.
    expect(html).toContain('<script type="module" async src="/assets/prefetch-x.js"></script>')
    expect(readBack(configureHtml(html, dev))).toEqual(dev)
  })

  test.each([
    [{ apiUrl: 'ftp://api.example.com' }, /apiUrl must be a http: or https: URL/],
    [{ apiUrl: 'https://user:pw@api.example.com' }, /without credentials/],
    [{ apiUrl: 'https://*' }, /of a plain host/],
    [{ apiUrl: 'https://%2A.example.com' }, /of a plain host/],
    [{ apiUrl: 'https://x;script-src-elem' }, /of a plain host/],
    [{ secureFrameUrl: 'https://a,b.example' }, /of a plain host/],
    [{ apiUrl: 'https://api.example.com/path?' }, /without credentials, query or fragment/],
    [{ apiUrl: 'https://api.example.com#' }, /without credentials, query or fragment/],
    [{ secureFrameUrl: 'not a url' }, /secureFrameUrl must be a URL/],
    [
      { walletConnectRelayUrl: 'https://relay.example.com' },
      /walletConnectRelayUrl must be a ws: or wss: URL/,
    ],
    [{ walletConnectProjectId: '"><script>alert(1)</script>' }, /walletConnectProjectId must be/],
    [{ apiUrl: undefined }, /apiUrl must be a URL/],
  ])('refuses %j, naming the setting', (change, message) => {
    expect(() => configureHtml(built, { ...deployed, ...change })).toThrow(message)
  })

  test('no value can end the block: `<` is escaped in the JSON', () => {
    const html = configureHtml(built, { ...deployed, apiUrl: 'https://api.example.com/</script>' })
    expect(html.match(/<\/script>/g)).toHaveLength(2)
    expect(readBack(html).apiUrl).toBe('https://api.example.com/%3C/script%3E')
  })

  test('refuses a page that is not a built widget page', () => {
    expect(() => configureHtml('<html><head></head></html>', deployed)).toThrow(
      /Not a built widget page/,
    )
  })
})

describe('scripts/configure.mjs', () => {
  const script = join(import.meta.dirname, '..', 'scripts', 'configure.mjs')
  const run = (dir: string, ...args: string[]) =>
    execFileSync(process.execPath, [script, '--dist', dir, ...args], {
      encoding: 'utf8',
      stdio: 'pipe',
    })

  test('configures the page in place; a bad setting writes nothing and says which', () => {
    const dir = mkdtempSync(join(tmpdir(), 'porthole-configure-'))
    try {
      writeFileSync(join(dir, 'index.html'), built)
      const flags = [
        '--api-url',
        deployed.apiUrl,
        '--secure-frame-url',
        deployed.secureFrameUrl,
        '--relay-url',
        deployed.walletConnectRelayUrl,
        '--walletconnect-project-id',
        deployed.walletConnectProjectId,
      ]
      expect(run(dir, ...flags)).toBe(`Configured ${join(dir, 'index.html')}\n`)
      const configured = readFileSync(join(dir, 'index.html'), 'utf8')
      expect(readBack(configured).apiUrl).toBe('https://api.example.com')
      let failure: { status: number; stderr: string } | undefined
      try {
        run(dir, ...flags.slice(0, -2), '--walletconnect-project-id', 'bad id')
      } catch (error) {
        failure = error as { status: number; stderr: string }
      }
      expect(failure?.status).toBe(1)
      expect(failure?.stderr).toBe(
        'Error: walletConnectProjectId must be 1 to 128 letters, digits, _ or -, not "bad id"\n',
      )
      expect(readFileSync(join(dir, 'index.html'), 'utf8')).toBe(configured)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('readRuntimeConfig', () => {
  test('takes the string settings only, and nothing from a page without the block or with bad JSON', () => {
    const page = (block: string) => documentOf(`<head>${block}</head>`)
    expect(
      readRuntimeConfig(
        page(
          '<script type="application/json" id="porthole-config">{"apiUrl":"https://a.example","secureFrameUrl":7,"other":"x"}</script>',
        ),
      ),
    ).toEqual({ apiUrl: 'https://a.example' })
    expect(readRuntimeConfig(page(''))).toEqual({})
    expect(
      readRuntimeConfig(
        page('<script type="application/json" id="porthole-config">{nope</script>'),
      ),
    ).toEqual({})
    expect(readRuntimeConfig(undefined)).toEqual({})
  })
})
