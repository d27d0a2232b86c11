/**
 * Serves the secure frame's origin: the built files of `dist/`, and its HTML
 * document with a per-project CSP (SECURITY.md 4, 5 and 14). The document
 * needs `?projectId=`; its `frame-ancestors` names the widget and the
 * project's allowed host origins, or the dev defaults when the list is empty.
 * An unknown project, a missing id or an unreachable API fail closed with
 * `frame-ancestors 'none'` and a short plain error page.
 *
 * It answers only requests whose `Host` is its own name (SECURITY.md 25):
 * the host of `SECURE_FRAME_ORIGIN` and, in development, the loopback names
 * on its port; any other Host (DNS rebinding) gets 421 before anything else.
 *
 * Run it with `npx tsx apps/secure-frame/server/server.ts` and its settings in
 * the environment: PORT, API_URL, PUBLIC_API_URL, WIDGET_ORIGIN and
 * SECURE_FRAME_ORIGIN are required (`npm start` passes the dev stack's, from
 * `@porthole/dev-stack/stack`: this code ships, so it names no dev origin);
 * HOST (127.0.0.1), PORTHOLE_ENV (development) and DIST_DIR
 * (apps/secure-frame/dist) have defaults. `GET /health` answers `{"ok":true}`
 * without asking the API.
 */
import { realpathSync } from 'node:fs'
import { readFile, realpath, stat } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  hostRuleOf,
  isHttpsOrLoopback,
  isHttpsOrPrivate,
  isOwnHost,
} from '@porthole/protocol/HostNames'
import { devDefaultSources } from '@porthole/protocol/Origin'
import { ConfigError, toError, UnknownProjectError } from '../src/lib/errors.js'
import { createAllowedOriginsCache } from './allowedOrigins.js'
import { createCsp, deniedCsp, toHostSources, toSource } from './csp.js'

export type SecureFrameServerOptions = {
  /** The API as this server reaches it, e.g. `http://127.0.0.1:5173`. */
  apiUrl: string
  /** The API as the browser sees it: the CSP's only `connect-src`. */
  publicApiUrl: string
  /** The widget's exact origin, always named in `frame-ancestors`. */
  widgetOrigin: string
  /**
   * This server's origin as browsers reach it (`SECURE_FRAME_ORIGIN`): its
   * host is the name it answers to (SECURITY.md 25).
   */
  origin: string
  /**
   * Whether the loopback names (127.0.0.1, localhost, [::1]) on the port it
   * listens on answer too: `true` (development) by default, `false` under
   * `PORTHOLE_ENV=production`.
   */
  loopbackHosts?: boolean | undefined
  /** The secure frame's Vite build (`apps/secure-frame/dist`). */
  distDir: string
  /** Hosts allowed when a project's list is empty; defaults to `Origin.devDefaultSources` (localhost, 127.0.0.1, *.localhost; http or https). */
  devDefaults?: readonly string[] | undefined
  /** How long a project's allowed origins are reused; 30 s by default. */
  cacheTtlMs?: number | undefined
  /** Called with each failure worth a log line (API down, unreadable build); never with a request's data. */
  onError?: ((error: Error) => void) | undefined
}

const contentTypes: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
}

/** Headers on every response. */
const baseHeaders = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
}

/**
 * The approval popup's page (SECURITY.md 7 and 15): a top-level window of this
 * origin, never framed, talking only to its opener. Its opener must keep the
 * reference, so no `Cross-Origin-Opener-Policy: same-origin`.
 */
export const popupCsp =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

/** Vite's hashed output: safe to cache for a year. */
const immutable = 'public, max-age=31536000, immutable'

function exactOrigin(value: string, name: string): string {
  let origin: string
  try {
    origin = new URL(value).origin
  } catch {
    throw new ConfigError(`${name} '${value}' is not a URL`)
  }
  if (toSource(origin, { wildcard: false }) !== origin)
    throw new ConfigError(`${name} '${value}' is not an http(s) origin`)
  return origin
}

function sendText(
  response: ServerResponse,
  request: IncomingMessage,
  status: number,
  text: string,
  extra: Record<string, string> = {},
): void {
  const body = `${text}\n`
  response.writeHead(status, {
    ...baseHeaders,
    'Content-Security-Policy': deniedCsp,
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'Cache-Control': 'no-store',
    ...extra,
  })
  response.end(request.method === 'HEAD' ? undefined : body)
}

/** The file under `root` that a decoded URL path names, or `undefined` when it could lie outside. */
function resolveInside(root: string, pathname: string): string | undefined {
  let decoded: string
  try {
    decoded = decodeURIComponent(pathname)
  } catch {
    return
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return
  const segments = decoded.split('/').filter((segment) => segment !== '')
  // No `..`, no dotfiles: nothing but Vite's output is served.
  if (segments.length === 0 || segments.some((segment) => segment.startsWith('.'))) return
  const file = path.resolve(root, ...segments)
  return file.startsWith(root + path.sep) ? file : undefined
}

/** A `node:http` server for the secure frame's origin (not yet listening). */
export function createSecureFrameServer(options: SecureFrameServerOptions): Server {
  const widgetOrigin = exactOrigin(options.widgetOrigin, 'The widget origin')
  const apiOrigin = exactOrigin(options.publicApiUrl, 'The public API URL')
  exactOrigin(options.apiUrl, 'The API URL')
  const hosts = hostRuleOf({
    origin: exactOrigin(options.origin, 'The secure frame origin'),
    loopback: options.loopbackHosts ?? true,
  })
  const defaults = options.devDefaults ?? devDefaultSources
  const root = path.resolve(options.distDir)
  const origins = createAllowedOriginsCache({ apiUrl: options.apiUrl, ttlMs: options.cacheTtlMs })
  const onError = options.onError ?? (() => {})

  const serveDocument = async (request: IncomingMessage, response: ServerResponse, url: URL) => {
    const ids = url.searchParams.getAll('projectId')
    const [projectId] = ids
    if (ids.length !== 1 || projectId === undefined)
      return sendText(response, request, 403, 'Porthole secure frame: a projectId is required.')
    let allowed: string[]
    try {
      allowed = await origins.get(projectId)
    } catch (error) {
      if (error instanceof UnknownProjectError)
        return sendText(response, request, 403, 'Porthole secure frame: unknown project.')
      onError(toError(error))
      return sendText(
        response,
        request,
        503,
        'Porthole secure frame: the allowed origins could not be loaded. Try again later.',
        { 'Retry-After': '5' },
      )
    }
    let html: Buffer
    try {
      html = await readFile(path.join(root, 'index.html'))
    } catch (error) {
      onError(new ConfigError('The secure frame is not built', { cause: error }))
      return sendText(response, request, 500, 'Porthole secure frame: not built.')
    }
    const csp = createCsp({ widgetOrigin, apiOrigin, hosts: toHostSources(allowed, defaults) })
    response.writeHead(200, {
      ...baseHeaders,
      'Content-Security-Policy': csp,
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Length': String(html.byteLength),
      'Cache-Control': 'no-store',
    })
    response.end(request.method === 'HEAD' ? undefined : html)
  }

  const servePopup = async (request: IncomingMessage, response: ServerResponse) => {
    let html: Buffer
    try {
      html = await readFile(path.join(root, 'approve.html'))
    } catch (error) {
      onError(new ConfigError('The secure frame is not built', { cause: error }))
      return sendText(response, request, 500, 'Porthole secure frame: not built.')
    }
    response.writeHead(200, {
      ...baseHeaders,
      'Content-Security-Policy': popupCsp,
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Length': String(html.byteLength),
      'Cache-Control': 'no-store',
    })
    response.end(request.method === 'HEAD' ? undefined : html)
  }

  const serveFile = async (request: IncomingMessage, response: ServerResponse, url: URL) => {
    const file = resolveInside(root, url.pathname)
    const type = file && contentTypes[path.extname(file).toLowerCase()]
    // HTML only ever goes out with its project's CSP, through `serveDocument`.
    if (!file || !type) return sendText(response, request, 404, 'Not found.')
    let body: Buffer
    try {
      const real = await realpath(file)
      const realRoot = await realpath(root)
      if (!real.startsWith(realRoot + path.sep) || !(await stat(real)).isFile())
        return sendText(response, request, 404, 'Not found.')
      body = await readFile(real)
    } catch {
      return sendText(response, request, 404, 'Not found.')
    }
    response.writeHead(200, {
      ...baseHeaders,
      'Content-Security-Policy': deniedCsp,
      'Cross-Origin-Resource-Policy': 'same-origin',
      'Content-Type': type,
      'Content-Length': String(body.byteLength),
      'Cache-Control': url.pathname.startsWith('/assets/') ? immutable : 'no-cache',
    })
    response.end(request.method === 'HEAD' ? undefined : body)
  }

  return createServer((request, response) => {
    const handle = async () => {
      // Before anything else, /health included: a DNS-rebound name gets nothing (SECURITY.md 25).
      if (!isOwnHost(hosts, request.headers.host, request.socket.localPort ?? 0))
        return sendText(
          response,
          request,
          421,
          'Porthole secure frame: unknown host name. Open it at its configured origin (SECURE_FRAME_ORIGIN).',
        )
      if (request.method !== 'GET' && request.method !== 'HEAD')
        return sendText(response, request, 405, 'Method not allowed.', { Allow: 'GET, HEAD' })
      let url: URL
      try {
        url = new URL(request.url ?? '/', 'http://secure-frame.invalid')
      } catch {
        return sendText(response, request, 400, 'Bad request.')
      }
      if (url.pathname === '/health') {
        const body = '{"ok":true}'
        response.writeHead(200, {
          ...baseHeaders,
          'Content-Security-Policy': deniedCsp,
          'Content-Type': 'application/json; charset=utf-8',
          'Content-Length': String(body.length),
          'Cache-Control': 'no-store',
        })
        return response.end(request.method === 'HEAD' ? undefined : body)
      }
      if (url.pathname === '/' || url.pathname === '/index.html')
        return serveDocument(request, response, url)
      if (url.pathname === '/approve.html') return servePopup(request, response)
      return serveFile(request, response, url)
    }
    handle().catch((error: unknown) => {
      onError(toError(error))
      if (!response.headersSent) sendText(response, request, 500, 'Internal error.')
      else response.destroy()
    })
  })
}

const defaultDistDir = fileURLToPath(new URL('../dist/', import.meta.url))

/** Starts the server from environment variables; see the file's comment. */
export function main(env: NodeJS.ProcessEnv = process.env): Server {
  const setting = (name: string, fallback?: string) => {
    const value = env[name]
    if (value !== undefined && value !== '') return value
    if (fallback === undefined) throw new ConfigError(`${name} is required`)
    return fallback
  }
  const portText = setting('PORT')
  const port = Number(portText)
  if (!/^\d{1,5}$/.test(portText) || port > 65_535)
    throw new ConfigError(`PORT '${portText}' is not a port number (0-65535)`)
  const host = setting('HOST', '127.0.0.1')
  const widgetOrigin = setting('WIDGET_ORIGIN')
  const apiUrl = setting('API_URL')
  const publicApiUrl = setting('PUBLIC_API_URL')
  const origin = setting('SECURE_FRAME_ORIGIN')
  const portholeEnv = setting('PORTHOLE_ENV', 'development')
  if (portholeEnv !== 'development' && portholeEnv !== 'production')
    throw new ConfigError(`PORTHOLE_ENV '${portholeEnv}' must be development or production`)
  // The browser-facing URLs: https, or plain http on a loopback name (tests).
  // API_URL is this server's own way to the API (a private network may be http).
  if (portholeEnv === 'production') {
    const refused = (
      [
        ['PUBLIC_API_URL', publicApiUrl],
        ['WIDGET_ORIGIN', widgetOrigin],
        ['SECURE_FRAME_ORIGIN', origin],
      ] as const
    ).filter(([, url]) => !isHttpsOrLoopback(url))
    const lines = refused.map(
      ([name]) =>
        `PORTHOLE_ENV=production: ${name} must be https (plain http only on a loopback name such as 127.0.0.1 or *.localhost)`,
    )
    // The projects' allowed origins (its frame-ancestors) come this way.
    if (!isHttpsOrPrivate(apiUrl))
      lines.push(
        'PORTHOLE_ENV=production: API_URL must be https (plain http only to this machine or a private network address)',
      )
    if (lines.length > 0) throw new ConfigError(lines.join('\n'))
  }
  const distDir = setting('DIST_DIR', defaultDistDir)
  const log = (line: string) => process.stderr.write(`${line}\n`)
  const server = createSecureFrameServer({
    apiUrl,
    publicApiUrl,
    widgetOrigin,
    origin,
    loopbackHosts: portholeEnv === 'development',
    distDir,
    onError: (error) => log(`Secure frame: ${error.message}`),
  })
  server.listen(port, host, () => {
    const address = server.address()
    const bound = typeof address === 'object' && address ? address.port : port
    process.stdout.write(
      `Secure frame listening on http://${host}:${bound} as ${origin}${portholeEnv === 'development' ? ' (and loopback names: development)' : ''} (widget ${widgetOrigin}, API ${apiUrl}, browser API ${publicApiUrl})\n`,
    )
  })
  const stop = () => server.close(() => process.exit(0))
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  return server
}

/** Whether this file is the process's entry (`tsx apps/secure-frame/server/server.ts`), not an import. */
function isEntry(): boolean {
  const entry = process.argv[1]
  if (!entry) return false
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url))
  } catch {
    return false
  }
}

if (isEntry()) {
  try {
    main()
  } catch (error) {
    // A bad setting: its line(s), no stack.
    if (!(error instanceof ConfigError)) throw error
    process.stderr.write(`${error.shortMessage}\n`)
    process.exit(1)
  }
}
