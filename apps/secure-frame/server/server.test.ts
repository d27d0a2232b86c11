import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { origins } from '@porthole/dev-stack/stack'
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest'
import { ConfigError } from '../src/lib/errors.js'
import { createSecureFrameServer, main, popupCsp, type SecureFrameServerOptions } from './server.js'

const widgetOrigin = origins.widget
/** The dev stack's names, as `npm start` passes them. */
const dev = { publicApiUrl: origins.api, origin: origins.secure }
const popupHtml =
  '<!doctype html><title>approve</title><script type="module" src="/assets/popup.js"></script>'
const html =
  '<!doctype html><title>secure</title><script type="module" src="/assets/app.js"></script>'

/** The allowed origins the fake API knows, by project id. */
const projects: Record<string, { status: number; body: string }> = {
  'porthole-dev': {
    status: 200,
    body: JSON.stringify({ allowedOrigins: ['http://127.0.0.1:5170', 'http://localhost:5170'] }),
  },
  empty: { status: 200, body: JSON.stringify({ allowedOrigins: [] }) },
  injected: {
    status: 200,
    body: JSON.stringify({
      allowedOrigins: [
        'https://good.example.com',
        "https://evil.test; script-src 'unsafe-inline'",
        'https://evil.test\r\nX-Injected: 1',
        "'self'",
        '*',
      ],
    }),
  },
  'all-invalid': { status: 200, body: JSON.stringify({ allowedOrigins: ['*'] }) },
  'extra-key': { status: 200, body: JSON.stringify({ allowedOrigins: [], admin: true }) },
  'too-many': {
    status: 200,
    body: JSON.stringify({
      allowedOrigins: Array.from({ length: 101 }, (_, i) => `https://h${i}.example.com`),
    }),
  },
  'too-long': {
    status: 200,
    body: JSON.stringify({ allowedOrigins: [`https://${'a'.repeat(300)}.example.com`] }),
  },
  'not-a-string': { status: 200, body: JSON.stringify({ allowedOrigins: [42] }) },
  'not-json': { status: 200, body: '<html>' },
  broken: { status: 500, body: '{"error":{"code":"internal","message":"boom"}}' },
  limited: { status: 429, body: '{"error":{"code":"rate_limited","message":"slow"}}' },
}

let apiHits: string[] = []
let api: Server
let apiUrl: string
let root: string
let distDir: string
const servers: Server[] = []

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
    })
  })
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve())
    server.closeAllConnections()
  })
}

async function startFrameServer(options: Partial<SecureFrameServerOptions> = {}): Promise<string> {
  const server = createSecureFrameServer({ ...dev, apiUrl, widgetOrigin, distDir, ...options })
  servers.push(server)
  return listen(server)
}

type RawResponse = {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/** A request with the path (and headers: fetch cannot set Host) sent byte for byte (fetch would normalize `..`). */
function raw(
  base: string,
  rawPath: string,
  method = 'GET',
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const { hostname, port } = new URL(base)
  return new Promise((resolve, reject) => {
    const req = request(
      // An explicit Host, even an empty one, is sent as given.
      { hostname, port, path: rawPath, method, headers, setHost: headers.host === undefined },
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => {
          body += chunk
        })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
      },
    )
    req.on('error', reject)
    req.end()
  })
}

function frameAncestors(csp: string | string[] | undefined): string | undefined {
  return String(csp)
    .split(';')
    .map((part) => part.trim())
    .find((part) => part.startsWith('frame-ancestors '))
}

beforeAll(async () => {
  api = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://api.test')
    if (url.pathname !== '/projects/v1/origins') {
      res.writeHead(404).end()
      return
    }
    const projectId = url.searchParams.get('projectId') ?? ''
    apiHits.push(projectId)
    const project = projects[projectId] ?? {
      status: 403,
      body: '{"error":{"code":"unknown_project","message":"Unknown"}}',
    }
    res.writeHead(project.status, { 'Content-Type': 'application/json' }).end(project.body)
  })
  apiUrl = await listen(api)
  root = await mkdtemp(path.join(tmpdir(), 'secure-frame-server-'))
  distDir = path.join(root, 'dist')
  await mkdir(path.join(distDir, 'assets'), { recursive: true })
  await writeFile(path.join(distDir, 'index.html'), html)
  await writeFile(path.join(distDir, 'approve.html'), popupHtml)
  await writeFile(path.join(distDir, 'assets', 'app.js'), 'export {}\n')
  await writeFile(path.join(distDir, 'assets', 'app.css'), 'body{}\n')
  await writeFile(path.join(distDir, 'assets', 'page.html'), html)
  await writeFile(path.join(distDir, '.env'), 'SECRET=dotfile\n')
  await writeFile(path.join(root, 'package.json'), '{"secret":"OUTSIDE-DIST"}\n')
})

afterEach(async () => {
  apiHits = []
  vi.useRealTimers()
  await Promise.all(servers.splice(0).map(close))
})

afterAll(async () => {
  await close(api)
  await rm(root, { recursive: true, force: true })
})

describe('inv-07 the approval popup page', () => {
  test('is served without a project, never framed, with no opener-breaking policy', async () => {
    const base = await startFrameServer()
    const response = await fetch(`${base}/approve.html`)
    expect(response.status).toBe(200)
    expect(await response.text()).toBe(popupHtml)
    const csp = response.headers.get('content-security-policy') ?? ''
    expect(csp).toBe(popupCsp)
    expect(csp).toContain("frame-ancestors 'none'")
    expect(csp).toContain("connect-src 'none'")
    expect(response.headers.get('cross-origin-opener-policy')).toBeNull()
    expect(response.headers.get('cache-control')).toBe('no-store')
    // It asks the API nothing.
    expect(apiHits).toEqual([])
  })
})

describe('inv-04 createSecureFrameServer', () => {
  test('serves the document with frame-ancestors naming the widget and the allowed hosts', async () => {
    const base = await startFrameServer()
    const response = await fetch(`${base}/?projectId=porthole-dev`)
    expect(response.status).toBe(200)
    expect(await response.text()).toBe(html)
    expect(response.headers.get('content-security-policy')).toBe(
      "frame-ancestors http://widget.localhost:5171 http://127.0.0.1:5170 http://localhost:5170; default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src http://api.localhost:5173; base-uri 'none'; form-action 'none'",
    )
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    expect(response.headers.get('referrer-policy')).toBe('no-referrer')
    expect(apiHits).toEqual(['porthole-dev'])
  })

  test('/index.html is the same document, with the same per-project policy', async () => {
    const base = await startFrameServer()
    const response = await fetch(`${base}/index.html?projectId=porthole-dev`)
    expect(response.status).toBe(200)
    expect(frameAncestors(response.headers.get('content-security-policy') ?? '')).toBe(
      'frame-ancestors http://widget.localhost:5171 http://127.0.0.1:5170 http://localhost:5170',
    )
  })

  test('connect-src is the API as the browser sees it, not the server-side URL', async () => {
    const base = await startFrameServer({ publicApiUrl: 'https://api.example.com/some/path' })
    const response = await fetch(`${base}/?projectId=porthole-dev`)
    const csp = response.headers.get('content-security-policy') ?? ''
    expect(csp).toContain('connect-src https://api.example.com;')
    expect(csp).not.toContain(apiUrl)
  })

  test.each([
    ['an unknown project', '/?projectId=nope', 403],
    ['a missing projectId', '/', 403],
    ['an empty projectId', '/?projectId=', 403],
    ['a malformed projectId', '/?projectId=a%26b%3Dc', 403],
    ['two projectIds', '/?projectId=porthole-dev&projectId=empty', 403],
  ])("%s is refused with frame-ancestors 'none' and a plain page", async (_, url, status) => {
    const base = await startFrameServer()
    const response = await raw(base, url)
    expect(response.status).toBe(status)
    expect(frameAncestors(response.headers['content-security-policy'])).toBe(
      "frame-ancestors 'none'",
    )
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8')
    expect(response.headers['cache-control']).toBe('no-store')
    expect(response.body).not.toContain('<script')
    expect(response.body.length).toBeLessThan(200)
  })

  test('a malformed projectId never reaches the API', async () => {
    const base = await startFrameServer()
    await raw(base, '/?projectId=a%26b%3Dc')
    await raw(base, `/?projectId=${'x'.repeat(65)}`)
    expect(apiHits).toEqual([])
  })

  test('caches a project for the TTL, then asks the API again', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const base = await startFrameServer({ cacheTtlMs: 30_000 })
    await fetch(`${base}/?projectId=porthole-dev`)
    await fetch(`${base}/?projectId=porthole-dev`)
    expect(apiHits).toEqual(['porthole-dev'])
    vi.setSystemTime(Date.now() + 31_000)
    await fetch(`${base}/?projectId=porthole-dev`)
    expect(apiHits).toEqual(['porthole-dev', 'porthole-dev'])
  })

  test('concurrent requests for one project share one API call', async () => {
    const base = await startFrameServer()
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => fetch(`${base}/?projectId=porthole-dev`)),
    )
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200, 200])
    expect(apiHits).toEqual(['porthole-dev'])
  })

  test('an unknown project is not cached: it is asked again', async () => {
    const base = await startFrameServer()
    await fetch(`${base}/?projectId=nope`)
    await fetch(`${base}/?projectId=nope`)
    expect(apiHits).toEqual(['nope', 'nope'])
  })

  test('HEAD gets the same headers and no body', async () => {
    const base = await startFrameServer()
    const response = await raw(base, '/?projectId=porthole-dev', 'HEAD')
    expect(response.status).toBe(200)
    expect(frameAncestors(response.headers['content-security-policy'])).toContain(widgetOrigin)
    expect(response.body).toBe('')
  })

  test('other methods are refused', async () => {
    const base = await startFrameServer()
    const response = await raw(base, '/?projectId=porthole-dev', 'POST')
    expect(response.status).toBe(405)
    expect(response.headers.allow).toBe('GET, HEAD')
  })

  test('refuses to start with a widget origin that is not an origin', () => {
    expect(() =>
      createSecureFrameServer({ ...dev, apiUrl, distDir, widgetOrigin: 'widget.localhost:5171' }),
    ).toThrow(/widget origin/)
  })
})

describe('inv-05 createSecureFrameServer', () => {
  test('an empty allow list gives the dev defaults only', async () => {
    const base = await startFrameServer()
    const response = await fetch(`${base}/?projectId=empty`)
    expect(response.status).toBe(200)
    expect(frameAncestors(response.headers.get('content-security-policy') ?? '')).toBe(
      'frame-ancestors http://widget.localhost:5171 http://localhost:* http://127.0.0.1:* http://*.localhost:* https://localhost:* https://127.0.0.1:* https://*.localhost:*',
    )
  })

  test("with no dev defaults, an empty list fails closed: frame-ancestors 'none'", async () => {
    const base = await startFrameServer({ devDefaults: [] })
    const response = await fetch(`${base}/?projectId=empty`)
    expect(frameAncestors(response.headers.get('content-security-policy') ?? '')).toBe(
      "frame-ancestors 'none'",
    )
  })

  test("a list of invalid entries does not fall back to the defaults: frame-ancestors 'none'", async () => {
    const base = await startFrameServer()
    const response = await fetch(`${base}/?projectId=all-invalid`)
    expect(frameAncestors(response.headers.get('content-security-policy') ?? '')).toBe(
      "frame-ancestors 'none'",
    )
  })

  test('entries that would inject a directive or a header are dropped', async () => {
    const base = await startFrameServer()
    const response = await raw(base, '/?projectId=injected')
    expect(response.status).toBe(200)
    const csp = String(response.headers['content-security-policy'])
    expect(frameAncestors(csp)).toBe(
      'frame-ancestors http://widget.localhost:5171 https://good.example.com',
    )
    expect(csp).not.toContain('unsafe-inline')
    expect(csp.split(';')).toHaveLength(8)
    expect(response.headers['x-injected']).toBeUndefined()
  })

  test.each([
    ['the API answers 500', 'broken'],
    ['the API rate-limits', 'limited'],
    ['the API answers something that is not JSON', 'not-json'],
    ['the API answers an unexpected key', 'extra-key'],
    ['the API answers more origins than Api.OriginsResponse allows', 'too-many'],
    ['the API answers an origin longer than Api.OriginsResponse allows', 'too-long'],
    ['the API answers an origin that is not a string', 'not-a-string'],
  ])("fails closed when %s: 503 with frame-ancestors 'none'", async (_, projectId) => {
    const onError = vi.fn()
    const base = await startFrameServer({ onError })
    const response = await raw(base, `/?projectId=${projectId}`)
    expect(response.status).toBe(503)
    expect(frameAncestors(response.headers['content-security-policy'])).toBe(
      "frame-ancestors 'none'",
    )
    expect(response.body).not.toContain('<script')
    expect(onError).toHaveBeenCalledTimes(1)
  })

  test("fails closed when the API is down: 503 with frame-ancestors 'none', then recovers", async () => {
    const down = createServer()
    const downUrl = await listen(down)
    await close(down)
    const base = await startFrameServer({ apiUrl: downUrl, onError: () => {} })
    const response = await raw(base, '/?projectId=porthole-dev')
    expect(response.status).toBe(503)
    expect(frameAncestors(response.headers['content-security-policy'])).toBe(
      "frame-ancestors 'none'",
    )
    expect(response.headers['cache-control']).toBe('no-store')
  })

  test('a failure is not cached: the next request asks the API again', async () => {
    const base = await startFrameServer({ onError: () => {} })
    await raw(base, '/?projectId=broken')
    await raw(base, '/?projectId=broken')
    expect(apiHits).toEqual(['broken', 'broken'])
  })
})

describe('inv-14 createSecureFrameServer', () => {
  test('serves built files with their content type and a long cache', async () => {
    const base = await startFrameServer()
    const script = await fetch(`${base}/assets/app.js`)
    expect(script.status).toBe(200)
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(script.headers.get('x-content-type-options')).toBe('nosniff')
    expect(script.headers.get('cross-origin-resource-policy')).toBe('same-origin')
    expect(await script.text()).toBe('export {}\n')
    const style = await fetch(`${base}/assets/app.css`)
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8')
    expect(apiHits).toEqual([])
  })

  test('/health answers without asking the API', async () => {
    const base = await startFrameServer()
    const response = await fetch(`${base}/health`)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ ok: true })
    expect(apiHits).toEqual([])
  })

  test('a missing file is 404', async () => {
    const base = await startFrameServer()
    const response = await raw(base, '/assets/missing.js')
    expect(response.status).toBe(404)
    expect(frameAncestors(response.headers['content-security-policy'])).toBe(
      "frame-ancestors 'none'",
    )
  })

  test.each([
    '/../package.json',
    '/assets/../../package.json',
    '/%2e%2e/package.json',
    '/%2E%2E/package.json',
    '/assets/%2e%2e/%2e%2e/package.json',
    '/assets/..%2f..%2fpackage.json',
    '/..%2fpackage.json',
    '/%2e%2e%2fpackage.json',
    '/..%5cpackage.json',
    '/assets/..%5c..%5cpackage.json',
    '//../package.json',
    '/.%2e/package.json',
    '/%252e%252e/package.json',
    '/assets/app.js%00.json',
    '/.env',
    '/%2eenv',
    '/%c0%ae%c0%ae/package.json',
    '/%ZZ',
  ])('path traversal is impossible: %s', async (rawPath) => {
    const base = await startFrameServer()
    const response = await raw(base, rawPath)
    expect(response.status).not.toBe(200)
    expect(response.body).not.toContain('OUTSIDE-DIST')
    expect(response.body).not.toContain('SECRET')
  })

  test.each([
    '/assets/page.html',
    '/%69ndex.html?projectId=porthole-dev',
    '/assets/../index.html%3FprojectId=porthole-dev',
  ])('HTML never goes out without its project policy: %s', async (rawPath) => {
    const base = await startFrameServer()
    const response = await raw(base, rawPath)
    expect(response.status).not.toBe(200)
    expect(response.body).not.toContain('<script')
  })

  test('a missing build is a 500 with frame-ancestors none, not a crash', async () => {
    const onError = vi.fn()
    const base = await startFrameServer({ distDir: path.join(root, 'nowhere'), onError })
    const response = await raw(base, '/?projectId=porthole-dev')
    expect(response.status).toBe(500)
    expect(frameAncestors(response.headers['content-security-policy'])).toBe(
      "frame-ancestors 'none'",
    )
    expect(onError).toHaveBeenCalledTimes(1)
  })
})

describe('inv-25 createSecureFrameServer answers only its own names', () => {
  const paths = ['/health', '/?projectId=porthole-dev', '/approve.html', '/assets/app.js']

  test.each([
    'attacker.example',
    'attacker.example:5172',
    'secure.localhost.attacker.example:5172',
    'secure.localhost:5173',
    '',
    'user@secure.localhost:5172',
  ])('Host %j: 421 on every path, the API never asked', async (host) => {
    const base = await startFrameServer()
    for (const rawPath of paths) {
      const response = await raw(base, rawPath, 'GET', { host })
      expect(response.status, rawPath).toBe(421)
      expect(response.body).not.toContain('<script')
      expect(response.body).not.toContain('export {}')
    }
    expect(apiHits).toEqual([])
  })

  test('its origin passes, as do the loopback names on its port in development', async () => {
    const base = await startFrameServer({ origin: 'http://secure.localhost:5172' })
    const { port } = new URL(base)
    for (const host of [
      'secure.localhost:5172',
      'SECURE.localhost.:5172',
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `[::1]:${port}`,
    ]) {
      expect((await raw(base, '/?projectId=porthole-dev', 'GET', { host })).status, host).toBe(200)
    }
    expect(
      (await raw(base, '/health', 'GET', { host: `localhost:${Number(port) + 1}` })).status,
    ).toBe(421)
  })

  test('in production only its origin: https://secure.example.com is secure.example.com and :443', async () => {
    const base = await startFrameServer({
      origin: 'https://secure.example.com',
      loopbackHosts: false,
    })
    const { port } = new URL(base)
    for (const host of ['secure.example.com', 'secure.example.com:443']) {
      expect((await raw(base, '/health', 'GET', { host })).status, host).toBe(200)
    }
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'secure.example.com:80']) {
      expect((await raw(base, '/health', 'GET', { host })).status, host).toBe(421)
    }
  })

  test('refuses to start with an origin that is not an origin', () => {
    expect(() =>
      createSecureFrameServer({
        ...dev,
        apiUrl,
        widgetOrigin,
        distDir,
        origin: 'secure.example.com',
      }),
    ).toThrow(/secure frame origin/)
  })
})

describe('main', () => {
  const env = {
    PORT: '0',
    API_URL: 'http://127.0.0.1:5173',
    PUBLIC_API_URL: origins.api,
    WIDGET_ORIGIN: origins.widget,
    SECURE_FRAME_ORIGIN: origins.secure,
  }

  test.each(Object.keys(env))(
    'refuses to start without %s: the server names no dev origin',
    (name) => {
      for (const value of [undefined, '']) {
        expect(() => main({ ...env, [name]: value })).toThrow(
          new ConfigError(`${name} is required`),
        )
      }
    },
  )

  test('PORTHOLE_ENV=production refuses a plain-http public URL off loopback, one line each', () => {
    const production = {
      ...env,
      PORTHOLE_ENV: 'production',
      PUBLIC_API_URL: 'http://api.porthole.example',
      WIDGET_ORIGIN: 'https://widget.porthole.example',
      SECURE_FRAME_ORIGIN: 'http://secure.porthole.example',
      API_URL: 'http://api.porthole.example',
    }
    const https =
      'must be https (plain http only on a loopback name such as 127.0.0.1 or *.localhost)'
    expect(() => main(production)).toThrow(
      new ConfigError(
        `PORTHOLE_ENV=production: PUBLIC_API_URL ${https}\nPORTHOLE_ENV=production: SECURE_FRAME_ORIGIN ${https}\nPORTHOLE_ENV=production: API_URL must be https (plain http only to this machine or a private network address)`,
      ),
    )
  })
})
