/**
 * SECURITY.md 25 against the running stack: DNS rebinding. Chromium resolves
 * every `*.localhost` name to this machine, as a rebound attacker's name
 * would: a top-level page at `http://rebound.localhost:<port>` is the
 * attacker's own origin, talking to our server. The API, the secure-frame
 * server and the widget server answer it 421 and nothing else; a login
 * posted under that name from Node (`Host` set as a rebinding browser sends
 * it) mails nothing. Their own names still work, and the dev outbox is not at
 * `/dev/outbox`.
 */
import { request } from 'node:http'
import { expect, test } from '@playwright/test'
import { ports } from '@porthole/dev-stack/stack'
import { stackMessages } from '@porthole/dev-stack/stackMail'
import { freshEmail } from '../embeddedFixtures.ts'
import { origins } from '../fixtures.ts'

/** The attacker's name, which Chromium (like a rebound DNS answer) resolves to 127.0.0.1. */
const rebound = (port: number) => `http://rebound.localhost:${port}`

/** A request to 127.0.0.1:`port` with `Host: host`, as a rebinding browser sends it (fetch cannot set Host). */
function send(
  port: number,
  host: string,
  method: string,
  path: string,
  { headers = {}, body }: { headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(
      { hostname: '127.0.0.1', port, method, path, headers: { ...headers, host }, setHost: false },
      (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => {
          text += chunk
        })
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }))
      },
    )
    sent.once('error', reject)
    sent.end(body)
  })
}

test('inv-25 a DNS-rebound name gets 421 from the API, the secure frame and the widget', async ({
  page,
}) => {
  for (const url of [
    `${rebound(ports.api)}/health`,
    `${rebound(ports.api)}/projects/v1/origins?projectId=porthole-dev`,
    `${rebound(ports.secure)}/?projectId=porthole-dev`,
    `${rebound(ports.secure)}/health`,
    `${rebound(ports.widget)}/loader.js`,
    `${rebound(ports.widget)}/`,
  ]) {
    const response = await page.goto(url)
    expect(response?.status(), url).toBe(421)
  }
  // The page of the API's 421 is the attacker's origin: it reads nothing else from there.
  await page.goto(`${rebound(ports.api)}/health`)
  const answer = await page.evaluate(async () => {
    const response = await fetch('/projects/v1/origins?projectId=porthole-dev')
    return { status: response.status, text: await response.text() }
  })
  expect(answer.status).toBe(421)
  expect(answer.text).toContain('misdirected_request')

  // Our own names still answer.
  expect((await page.goto(`${origins.api}/health`))?.status()).toBe(200)
  expect((await page.goto(`${origins.secure}/health`))?.status()).toBe(200)
  expect((await page.goto(`${origins.widget}/loader.js`))?.status()).toBe(200)
})

test('inv-25 a login under a rebound name mails nothing; the dev outbox is not at /dev/outbox', async () => {
  const email = freshEmail('inv25-rebound')
  const before = (await stackMessages()).length
  const login = (host: string) =>
    send(ports.api, host, 'POST', '/auth/v1/login/email?projectId=porthole-dev', {
      headers: { origin: origins.secure, 'content-type': 'application/json' },
      body: JSON.stringify({ email, deviceId: 'inv25-rebound-device-0123456789' }),
    })
  for (const host of [
    `attacker.example:${ports.api}`,
    `api.localhost.attacker.example:${ports.api}`,
    '',
  ]) {
    const answer = await login(host)
    expect(answer.status, host).toBe(421)
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'misdirected_request' } })
  }
  expect((await send(ports.api, `attacker.example:${ports.api}`, 'GET', '/health')).status).toBe(
    421,
  )
  // Give a mail the time to arrive, were one sent.
  await new Promise((resolve) => setTimeout(resolve, 500))
  const mailed = (await stackMessages()).slice(before).filter((mail) => mail.to.includes(email))
  expect(mailed).toEqual([])

  // Under the API's own name the outbox path is unknown without its token.
  const apiHost = new URL(origins.api).host
  expect((await send(ports.api, apiHost, 'GET', '/health')).status).toBe(200)
  expect((await send(ports.api, apiHost, 'GET', '/dev/outbox?format=json')).status).toBe(404)
  expect((await send(ports.api, apiHost, 'GET', '/dev/outbox/guess?format=json')).status).toBe(404)
})
