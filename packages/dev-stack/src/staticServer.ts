/**
 * A small static file server for development and tests: the widget origin
 * (its dist plus `/loader.js`) and the demo host. In production any CDN
 * serves these files.
 */
import { createReadStream, existsSync, statSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { extname, join, normalize, resolve, sep } from 'node:path'
import { type HostRule, isOwnHost } from '@porthole/protocol/HostNames'

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpeg': 'image/jpeg',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
}

export type StaticServerOptions = {
  root: string
  /** Extra paths served from elsewhere, e.g. `{ '/loader.js': '/abs/loader.js' }`. */
  aliases?: Record<string, string>
  /** Rewrites HTML before it is sent (templating for the demo host). */
  transformHtml?: (html: string, url: URL) => string | undefined
  /**
   * The names it answers to (SECURITY.md 25: the widget's origin, and
   * loopback names in development); any other `Host` gets 421 before
   * anything else. Unset: any name (the demo host and the bench pages,
   * which stand for any site).
   */
  hosts?: HostRule
}

/** Resolves a request path inside `root`; `undefined` when it would escape it. */
export function resolveInside(root: string, pathname: string): string | undefined {
  let decoded: string
  try {
    decoded = decodeURIComponent(pathname)
  } catch {
    return undefined
  }
  if (decoded.includes('\0')) return undefined
  const base = resolve(root)
  const path = resolve(base, `.${normalize(`/${decoded}`)}`)
  return path === base || path.startsWith(base + sep) ? path : undefined
}

export function createStaticServer(options: StaticServerOptions): Server {
  const { root, aliases = {}, transformHtml, hosts } = options
  return createServer(async (request, response) => {
    if (hosts && !isOwnHost(hosts, request.headers.host, request.socket.localPort ?? 0)) {
      response
        .writeHead(421, { 'Content-Type': 'text/plain; charset=utf-8' })
        .end('Misdirected request: unknown host name. Open this server at its configured origin.')
      return
    }
    const url = new URL(request.url ?? '/', 'http://localhost')
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { Allow: 'GET, HEAD' }).end()
      return
    }
    if (url.pathname === '/health') {
      response.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}')
      return
    }
    let path = aliases[url.pathname] ?? resolveInside(root, url.pathname)
    if (path && existsSync(path) && statSync(path).isDirectory()) path = join(path, 'index.html')
    if (!path || !existsSync(path)) {
      response.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found')
      return
    }
    const type = contentTypes[extname(path)] ?? 'application/octet-stream'
    const isHtml = type.startsWith('text/html')
    // The loader's files keep their names across releases; the Solana bridge is an ES
    // module the loader imports from the host page's origin, which needs CORS.
    const isLoader = /\/loader(-solana)?\.js$/.test(path)
    const headers: Record<string, string> = {
      'Content-Type': type,
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': isHtml || isLoader ? 'no-cache' : 'public, max-age=31536000, immutable',
    }
    if (path.endsWith('/loader-solana.js')) headers['Access-Control-Allow-Origin'] = '*'
    if (isHtml && transformHtml) {
      const { readFile } = await import('node:fs/promises')
      const html = transformHtml(await readFile(path, 'utf8'), url)
      if (html === undefined) {
        response.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Bad request')
        return
      }
      response.writeHead(200, headers).end(request.method === 'HEAD' ? undefined : html)
      return
    }
    response.writeHead(200, headers)
    if (request.method === 'HEAD') response.end()
    else createReadStream(path).pipe(response)
  })
}
