#!/usr/bin/env node
/**
 * A host site's own backend checking a Porthole sign-in session: plain Node
 * (18 or later), no dependencies.
 *
 *   node apps/api/examples/check-session.mjs <apiUrl> <projectId> <origin> <token>
 *   node apps/api/examples/check-session.mjs http://127.0.0.1:5173 porthole-dev http://127.0.0.1:5170 "$TOKEN"
 *
 * The page gets the session from `Wallet.getSession()` and sends its `token`
 * to its backend (say in an `Authorization` header over HTTPS). The backend
 * asks the API with its OWN origin, a constant of its configuration, never a
 * value the browser sent: the API then refuses a session signed in on any
 * other site (`session_origin_mismatch`). Copy `checkSession` into the backend.
 *
 * Prints the session as JSON and exits 0 when the API accepts it; prints the
 * refusal and exits 1 when it does not; exits 2 on bad arguments or when the
 * API cannot be reached. The token itself is never printed.
 */
import { pathToFileURL } from 'node:url'

/**
 * Asks the API about a session token.
 *
 * @param {{ apiUrl: string, projectId: string, origin: string, token: string, timeoutMs?: number }} options
 * @returns {Promise<
 *   | { ok: true, session: { address: string, chainId: string, domain: string, uri: string, issuedAt: string, expirationTime: string | null, expiresAt: string } }
 *   | { ok: false, status: number, error: { code: string, message: string } }
 * >}
 */
export async function checkSession({ apiUrl, projectId, origin, token, timeoutMs = 10_000 }) {
  const url = new URL('/siwx/sessions/check', apiUrl)
  url.searchParams.set('projectId', projectId)
  url.searchParams.set('origin', origin)
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
    redirect: 'error',
    signal: AbortSignal.timeout(timeoutMs),
  })
  const body = await response.json().catch(() => undefined)
  if (response.ok) return { ok: true, session: body }
  const error =
    body && typeof body.error?.code === 'string'
      ? body.error
      : { code: 'unexpected_answer', message: `The API answered HTTP ${response.status}` }
  return { ok: false, status: response.status, error }
}

async function main(argv) {
  const [apiUrl, projectId, origin, token] = argv
  if (!apiUrl || !projectId || !origin || !token) {
    console.error(
      'Usage: node apps/api/examples/check-session.mjs <apiUrl> <projectId> <origin> <token>',
    )
    return 2
  }
  let result
  try {
    result = await checkSession({ apiUrl, projectId, origin, token })
  } catch (error) {
    console.error(`Could not reach the API at ${apiUrl}: ${error?.message ?? error}`)
    return 2
  }
  if (result.ok) {
    console.log(JSON.stringify({ accepted: true, session: result.session }, null, 2))
    return 0
  }
  console.log(
    JSON.stringify({ accepted: false, status: result.status, error: result.error }, null, 2),
  )
  return 1
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2))
}
