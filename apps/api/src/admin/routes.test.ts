/**
 * The operator's admin (`/admin/v1/…`, `/admin`): behind ADMIN_TOKEN, from no
 * other browser origin than the API's own, and changing projects while the
 * API serves them (the widget's origin check sees a change at once).
 */
import type { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestDb, type TestDb } from '../../test/db.js'
import { createApp } from '../app.js'
import { runProjectCommand } from '../commands.js'
import { testConfig } from '../http/config.js'
import { createHttpAdmin, type ProjectView } from './admin.js'

const token = 'admin-token-for-tests-0123456789abcdef'
const ownOrigin = 'http://api.localhost:5173'

let testDb: TestDb
let app: Hono
beforeAll(async () => {
  testDb = await createTestDb({
    adminToken: token,
    rpcUpstreams: { 'eip155:31337': 'http://127.0.0.1:8545', 'eip155:1': 'https://rpc.example' },
  })
  app = createApp({ config: testDb.config, db: testDb.db })
})
afterAll(() => testDb?.close())

type Init = {
  method?: string
  body?: unknown
  auth?: string | null
  origin?: string
  type?: string
}
const call = (path: string, { method = 'GET', body, auth = token, origin, type }: Init = {}) => {
  const headers: Record<string, string> = {}
  if (auth !== null) headers.authorization = `Bearer ${auth}`
  if (origin) headers.origin = origin
  if (body !== undefined) headers['content-type'] = type ?? 'application/json'
  return app.request(path, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
}

describe('the admin, off', () => {
  test('without ADMIN_TOKEN nothing of it exists: 404 for the endpoints and the page', async () => {
    const off = createApp({ config: testConfig(), db: testDb.db })
    for (const path of ['/admin', '/admin/admin.js', '/admin/v1/projects'])
      expect(
        (await off.request(path, { headers: { authorization: `Bearer ${token}` } })).status,
      ).toBe(404)
  })
})

describe('the admin endpoints', () => {
  test('creates a project, then changes its origins, networks and features; a warning names networks without an upstream', async () => {
    const created = await call('/admin/v1/projects', {
      method: 'POST',
      body: { id: 'admin-site', name: 'Admin site', allowedOrigins: ['https://shop.example'] },
    })
    expect(created.status).toBe(201)
    expect(await created.json()).toMatchObject({
      id: 'admin-site',
      allowedOrigins: ['https://shop.example'],
      networks: ['eip155:1'],
      networksWithoutUpstream: [],
    })

    const origins = await call('/admin/v1/projects/admin-site/origins', {
      method: 'PUT',
      body: { origins: ['https://shop.example', 'https://*.shop.example'] },
    })
    expect(await origins.json()).toMatchObject({
      allowedOrigins: ['https://shop.example', 'https://*.shop.example'],
    })

    const networks = await call('/admin/v1/projects/admin-site/networks', {
      method: 'PUT',
      body: { networks: ['eip155:8453', 'eip155:1'] },
    })
    expect(await networks.json()).toMatchObject({
      networks: ['eip155:8453', 'eip155:1'],
      networksWithoutUpstream: ['eip155:8453'],
    })

    const features = await call('/admin/v1/projects/admin-site/features', {
      method: 'PUT',
      body: { analytics: false, email: true, heavyRpc: true },
    })
    const project = (await features.json()) as ProjectView
    expect(project.features).toMatchObject({ analytics: false, email: true, socials: [] })
    expect(project.heavyRpc).toBe(true)

    const list = (await (await call('/admin/v1/projects')).json()) as { projects: ProjectView[] }
    expect(list.projects.find(({ id }) => id === 'admin-site')).toEqual(project)
  })

  test('the mail budget and the counters', async () => {
    await call('/admin/v1/projects', { method: 'POST', body: { id: 'counted', name: 'C' } })
    const budget = await call('/admin/v1/projects/counted/mail-budget', {
      method: 'PUT',
      body: { mails: 500 },
    })
    expect(await budget.json()).toEqual({ mails: 500, windowMinutes: 10, isDefault: false })
    const usage = await call('/admin/v1/projects/counted/usage?days=7')
    expect(await usage.json()).toMatchObject({
      id: 'counted',
      days: 7,
      mailBudget: { mails: 500 },
      overflowMails: 0,
      rpcBudget: { windowsOver: 0, callsOver: 0 },
    })
    expect((await call('/admin/v1/projects/counted/usage?days=0')).status).toBe(400)
    // The widget's events (none yet), over 7 days unless told.
    expect(await (await call('/admin/v1/projects/counted/stats')).json()).toEqual({
      id: 'counted',
      days: 7,
      daily: [],
      totals: [],
      errorReports: 0,
      funnel: { opened: 0, choseWallet: 0, connected: 0 },
    })
    expect((await call('/admin/v1/projects/nobody/stats')).status).toBe(404)
  })

  test('the spam list: GET reads it as PUT left it, and needs the token like every admin route', async () => {
    await call('/admin/v1/projects', { method: 'POST', body: { id: 'flagging', name: 'F' } })
    const read = async () => (await call('/admin/v1/projects/flagging/spam')).json()
    expect(await read()).toEqual({ contracts: [] })
    const contract = `eip155:31337:0x${'Ab'.repeat(20)}`
    await call('/admin/v1/projects/flagging/spam', { method: 'PUT', body: { add: [contract] } })
    expect(await read()).toEqual({ contracts: [contract.toLowerCase()] })
    expect((await call('/admin/v1/projects/flagging/spam', { auth: null })).status).toBe(401)
    expect((await call('/admin/v1/projects/nobody/spam')).status).toBe(404)
  })

  test('a change is served at once: the origins endpoint the widget reads follows it, no restart', async () => {
    await call('/admin/v1/projects', {
      method: 'POST',
      body: { id: 'live', name: 'Live', allowedOrigins: ['https://old.example'] },
    })
    const served = async () => {
      const answer = await app.request('/projects/v1/origins?projectId=live', {
        headers: { origin: 'http://widget.localhost:5171' },
      })
      return ((await answer.json()) as { allowedOrigins: string[] }).allowedOrigins
    }
    expect(await served()).toEqual(['https://old.example'])
    await call('/admin/v1/projects/live/origins', {
      method: 'PUT',
      body: { origins: ['https://new.example'] },
    })
    expect(await served()).toEqual(['https://new.example'])
  })

  test("refuses bad input with the CLI's messages, changing nothing", async () => {
    await call('/admin/v1/projects', { method: 'POST', body: { id: 'steady', name: 'S' } })
    const bad = await call('/admin/v1/projects/steady/origins', {
      method: 'PUT',
      body: { origins: ['https://*.vercel.app'] },
    })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ error: { code: 'invalid_request' } })
    const unknown = await call('/admin/v1/projects/nobody/networks', {
      method: 'PUT',
      body: { networks: ['eip155:1'] },
    })
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toMatchObject({ error: { code: 'project_not_found' } })
    // A change refused in part writes nothing at all (heavyRpc included).
    const half = await call('/admin/v1/projects/steady/features', {
      method: 'PUT',
      body: { heavyRpc: true, socials: ['myspace'] },
    })
    expect(half.status).toBe(400)
    const huge = await call('/admin/v1/projects/steady/origins', {
      method: 'PUT',
      body: { origins: ['https://a.example'], padding: 'x'.repeat(300 * 1024) },
    })
    expect(huge.status).toBe(413)
    const extra = await call('/admin/v1/projects/steady/features', {
      method: 'PUT',
      body: { analytics: false, owner: 'me' },
    })
    expect(extra.status).toBe(400)
    const list = (await (await call('/admin/v1/projects')).json()) as { projects: ProjectView[] }
    expect(list.projects.find(({ id }) => id === 'steady')).toMatchObject({
      allowedOrigins: [],
      features: { analytics: true, socials: [] },
      heavyRpc: false,
    })
  })
})

describe('inv-21 the admin takes only its token, from no other origin', () => {
  test.each([
    ['no token', null],
    ['a wrong token', `${token}x`],
    ['another scheme', token],
  ])('%s: 401, and nothing changes', async (_name, auth) => {
    const response = await app.request('/admin/v1/projects', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(auth === null
          ? {}
          : { authorization: _name === 'another scheme' ? `Basic ${auth}` : `Bearer ${auth}` }),
      },
      body: JSON.stringify({ id: 'intruder', name: 'I' }),
    })
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toBe('Bearer')
    const list = (await (await call('/admin/v1/projects')).json()) as { projects: ProjectView[] }
    expect(list.projects.map(({ id }) => id)).not.toContain('intruder')
  })

  test("a page of another origin is refused even with the token (403), the API's own page is not", async () => {
    for (const origin of ['http://widget.localhost:5171', 'https://evil.example', 'null']) {
      const response = await call('/admin/v1/projects', { origin })
      expect(response.status).toBe(403)
    }
    expect((await call('/admin/v1/projects', { origin: ownOrigin })).status).toBe(200)
  })

  test('a write in another body type than JSON is refused (415)', async () => {
    const response = await call('/admin/v1/projects', {
      method: 'POST',
      body: { id: 'form', name: 'F' },
      type: 'text/plain',
    })
    expect(response.status).toBe(415)
  })

  test('wrong tokens are limited per address: the 21st in 10 minutes is 429', async () => {
    // A database of its own: the failures above count against the same address.
    const fresh = await createTestDb({ adminToken: token })
    const limited = createApp({ config: fresh.config, db: fresh.db })
    const statuses: number[] = []
    for (let attempt = 0; attempt < 21; attempt++) {
      const response = await limited.request('/admin/v1/projects', {
        headers: { authorization: 'Bearer wrong' },
      })
      statuses.push(response.status)
    }
    await fresh.close()
    expect(statuses.slice(0, 20).every((status) => status === 401)).toBe(true)
    expect(statuses[20]).toBe(429)
  })
})

describe('the admin page', () => {
  test('is one page and one script of the API, with a strict CSP and never framed', async () => {
    const page = await app.request('/admin')
    expect(page.status).toBe(200)
    const csp = page.headers.get('content-security-policy') ?? ''
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("connect-src 'self'")
    expect(csp).toContain("frame-ancestors 'none'")
    expect(page.headers.get('cache-control')).toBe('no-store')
    const html = await page.text()
    expect(html).toContain('<script src="/admin/admin.js"></script>')
    expect(html).not.toMatch(/<script>/)
    const script = await app.request('/admin/admin.js')
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/)
    const code = await script.text()
    expect(code).not.toContain('innerHTML')
    // The token is kept in memory only: a popup another site opens inherits a tab's sessionStorage.
    expect(code).not.toMatch(/sessionStorage|localStorage|document\.cookie/)
    // It parses: a slip in the template it is written in (a "\n" unescaped) broke the whole page once.
    expect(() => new Function(code)).not.toThrow()
    expect(page.headers.get('cross-origin-opener-policy')).toBe('same-origin')
  })
})

describe('npm run project -- --api', () => {
  test('runs the commands through the endpoints, printing what the direct CLI prints', async () => {
    const admin = createHttpAdmin({
      apiUrl: 'http://localhost',
      token,
      fetch: (input, init) => Promise.resolve(app.request(String(input), init)),
    })
    const out: string[] = []
    const err: string[] = []
    const io = {
      admin,
      out: (line: string) => out.push(line),
      err: (line: string) => err.push(line),
    }
    expect(
      await runProjectCommand(
        ['create', '--id', 'remote', '--name', 'R', '--networks', 'eip155:1,eip155:10'],
        io,
      ),
    ).toBe(0)
    expect(out[0]).toBe("Created project 'remote'.")
    expect(err).toEqual([
      expect.stringMatching(/^Warning: eip155:10 \(OP Mainnet\) has no RPC upstream/),
    ])
    expect(
      await runProjectCommand(
        ['set-origins', '--id', 'remote', '--origin', 'https://r.example'],
        io,
      ),
    ).toBe(0)
    expect(out.join('\n')).toContain('https://r.example')
    expect(
      await runProjectCommand(
        ['set-origins', '--id', 'ghost', '--origin', 'https://r.example'],
        io,
      ),
    ).toBe(1)
    expect(err.at(-1)).toBe("Error: No project with id 'ghost'")
    const wrong = createHttpAdmin({
      apiUrl: 'http://localhost',
      token: 'not-the-token',
      fetch: (input, init) => Promise.resolve(app.request(String(input), init)),
    })
    for (const apiUrl of ['http://api.porthole.example', 'https://api.porthole.example/porthole'])
      expect(() => createHttpAdmin({ apiUrl, token })).toThrow(/--api must be the API's origin/)
    expect(await runProjectCommand(['list'], { ...io, admin: wrong })).toBe(1)
    expect(err.at(-1)).toMatch(/^Error: A valid ADMIN_TOKEN is needed .*\(is ADMIN_TOKEN the API's/)
  })
})
