/**
 * SECURITY.md 25 for the widget's server of `npm start` (staticServer.ts,
 * a part of the stack the e2e suite runs): with `hosts`, a DNS-rebound name
 * gets 421 and no file; without, it serves any name (the demo host pages).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { hostRuleOf } from '@porthole/protocol/HostNames'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { createStaticServer, type StaticServerOptions } from './staticServer.ts'

let root: string
const servers: Server[] = []

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'static-server-'))
  await writeFile(join(root, 'index.html'), '<!doctype html><title>widget</title>')
  await writeFile(join(root, 'app.js'), 'export const secret = 1\n')
})
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})
afterAll(() => rm(root, { recursive: true, force: true }))

/** Listens on a free port of 127.0.0.1; resolves to the port. */
async function start(options: Partial<StaticServerOptions> = {}): Promise<number> {
  const server = createStaticServer({ root, ...options })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return (server.address() as AddressInfo).port
}

/** `GET path` with `Host: host` sent as given (fetch cannot set Host). */
function get(port: number, path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(
      { hostname: '127.0.0.1', port, path, headers: { host }, setHost: false },
      (response) => {
        let body = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => {
          body += chunk
        })
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }))
      },
    )
    sent.once('error', reject)
    sent.end()
  })
}

describe('inv-25 the widget server answers only its own names', () => {
  const widget = hostRuleOf({ origin: 'http://widget.localhost:5171', loopback: true })

  test.each([
    'attacker.example',
    'attacker.example:5171',
    'widget.localhost.attacker.example:5171',
    'widget.localhost:5172',
    '',
    'user@widget.localhost:5171',
  ])('Host %j: 421 and no file', async (host) => {
    const port = await start({ hosts: widget })
    for (const path of ['/health', '/', '/app.js']) {
      const response = await get(port, path, host)
      expect(response.status, path).toBe(421)
      expect(response.body).not.toContain('secret')
      expect(response.body).not.toContain('<title>')
    }
  })

  test('its origin and, in development, the loopback names on its port pass', async () => {
    const port = await start({ hosts: widget })
    for (const host of ['widget.localhost:5171', 'Widget.Localhost.:5171', `127.0.0.1:${port}`]) {
      expect((await get(port, '/app.js', host)).status, host).toBe(200)
    }
    expect((await get(port, '/app.js', `localhost:${port + 1}`)).status).toBe(421)
    const production = await start({
      hosts: hostRuleOf({ origin: 'https://widget.example.com', loopback: false }),
    })
    expect((await get(production, '/app.js', 'widget.example.com')).status).toBe(200)
    expect((await get(production, '/app.js', `127.0.0.1:${production}`)).status).toBe(421)
  })

  test('without `hosts` (a host page of the tests) any name is served', async () => {
    const port = await start()
    expect((await get(port, '/app.js', 'evil.localhost:5170')).status).toBe(200)
  })
})

describe('the loader files', () => {
  test("are never cached stale, and the Solana bridge (an ES module imported from the host's origin) allows CORS", async () => {
    await writeFile(join(root, 'loader-solana.js'), 'export const createSolanaBridge = 1\n')
    await writeFile(join(root, 'loader.js'), ';\n')
    const port = await start()
    const solana = await fetch(`http://127.0.0.1:${port}/loader-solana.js`)
    expect(solana.headers.get('access-control-allow-origin')).toBe('*')
    expect(solana.headers.get('cache-control')).toBe('no-cache')
    const loader = await fetch(`http://127.0.0.1:${port}/loader.js`)
    expect(loader.headers.get('cache-control')).toBe('no-cache')
    expect(loader.headers.get('access-control-allow-origin')).toBeNull()
    const other = await fetch(`http://127.0.0.1:${port}/app.js`)
    expect(other.headers.get('access-control-allow-origin')).toBeNull()
  })
})
