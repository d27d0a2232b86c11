/**
 * The production test's Playwright set-up: Chromium trusts the throwaway
 * certificate by its key pin (nothing installed), and the specs' own https
 * requests trust the throwaway CA; every `*.test` name is this machine.
 */
import { request as httpsRequest } from 'node:https'
import type { LookupFunction } from 'node:net'
import { test as base } from '@playwright/test'
import { readProdStack } from './stack.ts'

export { expect } from '@playwright/test'

export const test = base.extend({
  launchOptions: [
    async ({ launchOptions }, use) => {
      const { spki } = readProdStack()
      const args = [...(launchOptions.args ?? []), `--ignore-certificate-errors-spki-list=${spki}`]
      await use({ ...launchOptions, args })
    },
    { scope: 'worker' },
  ],
})

/** Every name resolves to 127.0.0.1, as Chromium's `--host-resolver-rules` says. */
const loopback: LookupFunction = (_hostname, options, callback) => {
  if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }])
  else callback(null, '127.0.0.1', 4)
}

export type ProdResponse = { status: number; headers: Record<string, string>; body: string }

/**
 * An https request through the proxy, as a server or another client would
 * send it, verified against the throwaway CA; `from` picks the client's own
 * loopback address (127.0.0.2, …) so the proxy sees another visitor.
 */
export function prodRequest(
  url: string,
  init: {
    method?: string
    headers?: Record<string, string>
    body?: string
    from?: string
    /** The request line's target as sent, e.g. an absolute URL (absolute form). */
    target?: string
  } = {},
): Promise<ProdResponse> {
  const { ca } = readProdStack()
  return new Promise((resolve, reject) => {
    const sent = httpsRequest(
      url,
      {
        method: init.method ?? 'GET',
        headers: init.headers,
        ca,
        lookup: loopback,
        localAddress: init.from,
        // TLS checks the URL's name, whatever Host header a test sends.
        servername: new URL(url).hostname,
        agent: false,
        ...(init.target ? { path: init.target } : {}),
      },
      (response) => {
        let body = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => {
          body += chunk
        })
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: Object.fromEntries(
              Object.entries(response.headers).map(([name, value]) => [name, String(value)]),
            ),
            body,
          }),
        )
      },
    )
    sent.once('error', reject)
    sent.end(init.body)
  })
}
