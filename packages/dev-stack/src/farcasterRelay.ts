/**
 * A stand-in for the Farcaster auth relay (https://relay.farcaster.xyz), the
 * server AuthKit's Sign In With Farcaster goes through, speaking its HTTP
 * protocol over a real socket on http://127.0.0.1:<port> (a free port unless
 * told):
 *
 * - `POST /v1/channel` `{ siweUri, domain, nonce?, notBefore?,
 *   expirationTime?, requestId?, redirectUrl? }` → 201 `{ channelToken, url,
 *   nonce }`; `url` is the link a Farcaster app opens
 *   (`<appUrl>?channelToken=…&nonce=…&siweUri=…&domain=…`, plus
 *   `notBefore`, `expirationTime`, `requestId` when given).
 * - `GET /v1/channel/status` (`Authorization: Bearer <channelToken>`) → 202
 *   `{ state: 'pending', nonce, url }`, then 200 `{ state: 'completed',
 *   nonce, url, message, signature, fid, username, bio, displayName, pfpUrl,
 *   custody, verifications }`; 401 for an unknown or expired channel.
 * - `POST /v1/channel/authenticate` (the same bearer) `{ message, signature,
 *   fid, username, bio, displayName, pfpUrl }` → 201 with the completed
 *   channel; 401 unknown or expired, 409 already completed.
 *
 * Channels live in memory for 10 minutes. Like the real relay, it checks
 * nothing of the signature: the app that reads the channel must. Where the
 * real relay asks a Farcaster hub for `custody` and `verifications`, this one
 * answers the signed message's address and no verifications. Errors are `{
 * error: <message> }`.
 */
import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { z } from 'zod'

/** How long a channel lives, as on the real relay. */
export const channelTtlMs = 10 * 60 * 1000
/** Where the real relay's links point. */
export const defaultAppUrl = 'https://warpcast.com/~/siwf'

export type CreateFarcasterRelayOptions = {
  /** Defaults to a free port. */
  port?: number
  /** The base of each channel's `url`; defaults to Warpcast's `https://warpcast.com/~/siwf`. */
  appUrl?: string
  /** Milliseconds a channel lives; defaults to 10 minutes. */
  ttlMs?: number
}

export type FarcasterRelayStandIn = {
  /** `http://127.0.0.1:<port>`: what `FARCASTER_RELAY_URL` names. */
  readonly url: string
  readonly port: number
  /** Channels opened so far (expired ones included until they are swept). */
  channelCount(): number
  /** Every request served, method and path, oldest first. */
  readonly requests: readonly { method: string; path: string }[]
  close(): Promise<void>
}

const maxBodyBytes = 64 * 1024
const Text = (max: number) => z.string().max(max)
const Nonce = z.string().regex(/^[a-zA-Z0-9]{8,128}$/)
const CreateChannel = z.strictObject({
  siweUri: z.url().max(2048),
  domain: z.string().min(1).max(256),
  nonce: Nonce.optional(),
  notBefore: z.iso.datetime().optional(),
  expirationTime: z.iso.datetime().optional(),
  requestId: Text(256).optional(),
  redirectUrl: z.url().max(2048).optional(),
})
const Authenticate = z.strictObject({
  message: z.string().min(1).max(8192),
  signature: z
    .string()
    .regex(/^0x[0-9a-fA-F]+$/)
    .max(4098),
  fid: z.number().int().positive(),
  username: Text(256).optional(),
  bio: Text(4096).optional(),
  displayName: Text(1024).optional(),
  pfpUrl: Text(4096).optional(),
})

type Channel = {
  nonce: string
  url: string
  expiresAt: number
  completed?: z.infer<typeof Authenticate> & { custody: string }
}

export async function createFarcasterRelay(
  options: CreateFarcasterRelayOptions = {},
): Promise<FarcasterRelayStandIn> {
  const { port = 0, appUrl = defaultAppUrl, ttlMs = channelTtlMs } = options
  const channels = new Map<string, Channel>()
  const requests: { method: string; path: string }[] = []

  const channelOf = (request: IncomingMessage): [string, Channel] | undefined => {
    const match = /^Bearer ([\w-]{1,256})$/.exec(request.headers.authorization ?? '')
    const token = match?.[1]
    if (token === undefined) return undefined
    const channel = channels.get(token)
    if (channel === undefined) return undefined
    if (channel.expiresAt <= Date.now()) {
      channels.delete(token)
      return undefined
    }
    return [token, channel]
  }

  const view = (channel: Channel) =>
    channel.completed === undefined
      ? { state: 'pending' as const, nonce: channel.nonce, url: channel.url }
      : {
          state: 'completed' as const,
          nonce: channel.nonce,
          url: channel.url,
          message: channel.completed.message,
          signature: channel.completed.signature,
          fid: channel.completed.fid,
          username: channel.completed.username,
          bio: channel.completed.bio,
          displayName: channel.completed.displayName,
          pfpUrl: channel.completed.pfpUrl,
          custody: channel.completed.custody,
          verifications: [] as string[],
        }

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://relay').pathname
    requests.push({ method: request.method ?? '', path })
    const send = (status: number, body: unknown) => {
      response.writeHead(status, {
        'content-type': 'application/json',
        'cache-control': 'no-store',
      })
      response.end(JSON.stringify(body))
    }
    const unauthorized = () => send(401, { error: 'Unauthorized' })

    if (request.method === 'POST' && path === '/v1/channel') {
      const body = CreateChannel.safeParse(await readJson(request))
      if (!body.success) return send(400, { error: 'Validation error' })
      const { siweUri, domain, notBefore, expirationTime, requestId } = body.data
      const nonce = body.data.nonce ?? randomBytes(12).toString('hex')
      const channelToken = randomBytes(24).toString('base64url')
      const url = new URL(appUrl)
      url.search = new URLSearchParams({
        channelToken,
        nonce,
        siweUri,
        domain,
        ...(notBefore === undefined ? {} : { notBefore }),
        ...(expirationTime === undefined ? {} : { expirationTime }),
        ...(requestId === undefined ? {} : { requestId }),
      }).toString()
      sweep(channels)
      channels.set(channelToken, { nonce, url: url.href, expiresAt: Date.now() + ttlMs })
      return send(201, { channelToken, url: url.href, nonce })
    }
    if (request.method === 'GET' && path === '/v1/channel/status') {
      const found = channelOf(request)
      if (found === undefined) return unauthorized()
      const [, channel] = found
      return send(channel.completed === undefined ? 202 : 200, view(channel))
    }
    if (request.method === 'POST' && path === '/v1/channel/authenticate') {
      const found = channelOf(request)
      if (found === undefined) return unauthorized()
      const [, channel] = found
      const body = Authenticate.safeParse(await readJson(request))
      if (!body.success) return send(400, { error: 'Validation error' })
      if (channel.completed !== undefined) return send(409, { error: 'Channel already completed' })
      const address = /^0x[0-9a-fA-F]{40}$/m.exec(body.data.message)?.[0] ?? ''
      channel.completed = { ...body.data, custody: address }
      return send(201, view(channel))
    }
    return send(404, { error: 'Not found' })
  }

  const server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ error: 'Internal error' }))
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve())
  })
  const { port: bound } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    channelCount: () => channels.size,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((error) => (error ? reject(error) : resolve()))
      }),
  }
}

/** The request's JSON body (at most 64 KiB); `undefined` when it is not JSON. */
async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > maxBodyBytes) return undefined
    chunks.push(chunk)
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown
  } catch {
    return undefined
  }
}

function sweep(channels: Map<string, Channel>): void {
  const now = Date.now()
  for (const [token, channel] of channels) if (channel.expiresAt <= now) channels.delete(token)
}
