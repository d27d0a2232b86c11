/**
 * A local stand-in for the WalletConnect relay (wss://relay.walletconnect.org),
 * speaking the relay's JSON-RPC over a WebSocket so that the real
 * `@walletconnect/core` clients (a dapp's universal provider, a wallet's
 * WalletKit) can pair and talk without the internet.
 *
 * What it does, as the 2.25 clients expect it:
 * - `irn_subscribe`, `irn_batchSubscribe`, `irn_unsubscribe`, `irn_batchUnsubscribe`;
 * - `irn_publish`, `irn_batchPublish`: delivered as `irn_subscription` requests
 *   to every other client subscribed to the topic, and kept for their ttl so a
 *   client that subscribes later still receives them (pairing relies on it);
 * - `irn_batchFetchMessages`: what is kept for the topics and not yet delivered;
 * - `wc_proposeSession` (the dapp's proposal on the pairing topic, which also
 *   subscribes the dapp to that topic) and `wc_approveSession` (the wallet's
 *   proposal response on the pairing topic and session settlement on the new
 *   session topic, which also subscribes the wallet to that topic): the
 *   clients skip `irn_subscribe` for these topics and count on the relay.
 *
 * A client is known by the `iss` of its auth JWT (its did:key), read and not
 * verified, so a reconnecting client is the same client: nothing is delivered
 * twice to it or back to its publisher. Subscription ids are
 * sha256(topic + client id), the ids the clients compute themselves.
 *
 * Run it alone with `tsx packages/dev-stack/src/relay.ts` (port from RELAY_PORT, default `ports.relay`).
 */
import { createHash, randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { pathToFileURL } from 'node:url'
import { RpcError } from '@porthole/protocol/Errors'
import { decodeJwt } from 'jose'
import { type RawData, type WebSocket, WebSocketServer } from 'ws'
import { z } from 'zod'
import { ports } from './stack.ts'

export type RelayOptions = { port?: number; host?: string }

export type Relay = {
  /** `ws://host:port`, to pass as the clients' `relayUrl`. */
  readonly url: string
  readonly port: number
  close(): Promise<void>
}

/** Tags the relay gives to what it publishes for `wc_proposeSession`/`wc_approveSession`. */
const tags = { sessionPropose: 1100, sessionProposeResponse: 1101, sessionSettle: 1102 } as const

/** Seconds a message is kept when the publisher gives no ttl. */
const DEFAULT_TTL = 300
/**
 * The relay pings every client this often (and drops expired messages); the Node
 * client drops a socket after 35 s of silence.
 */
const PING_INTERVAL = 15_000

type Stored = {
  topic: string
  message: string
  publishedAt: number
  expiresAt: number
  tag?: number
  attestation?: string
  /** Clients (by key) that have it or published it. */
  deliveredTo: Set<string>
}

type Client = {
  socket: WebSocket
  /** The client's did:key when its JWT says so, a random id otherwise. */
  key: string
  alive: boolean
  /** topic → subscription id */
  subscriptions: Map<string, string>
  /** irn_subscription requests sent and not acknowledged yet, by request id. */
  unacknowledged: Map<string, Stored>
}

const nonEmpty = z.string().min(1)
const PublishOptions = z.object({
  /** Seconds to keep the message. */
  ttl: z.number().nonnegative().optional(),
  tag: z.number().optional(),
  /** Kept only when a non-empty string. */
  attestation: z.string().min(1).optional().catch(undefined),
})
const Publish = PublishOptions.extend({ topic: nonEmpty, message: nonEmpty })
const Topic = z.object({ topic: nonEmpty })
const Topics = z.object({ topics: z.array(nonEmpty) })
const paramsOf = {
  irn_subscribe: Topic,
  irn_batchSubscribe: Topics,
  irn_unsubscribe: Topic,
  irn_batchUnsubscribe: z.object({ subscriptions: z.array(Topic) }),
  irn_publish: Publish,
  irn_batchPublish: z.object({ messages: z.array(Publish) }),
  irn_batchFetchMessages: Topics,
  wc_proposeSession: PublishOptions.extend({ pairingTopic: nonEmpty, sessionProposal: nonEmpty }),
  wc_approveSession: PublishOptions.extend({
    pairingTopic: nonEmpty,
    sessionTopic: nonEmpty,
    sessionProposalResponse: nonEmpty,
    sessionSettlementRequest: nonEmpty,
  }),
} as const
/** A JSON-RPC message: a request, or a client's answer (no method) to an `irn_subscription`. */
const Envelope = z.object({
  id: z.unknown().optional(),
  method: z.unknown().optional(),
  params: z.unknown().optional(),
})

/** The params of `method`, or -32602 naming the first field that is wrong. */
function readParams<method extends keyof typeof paramsOf>(
  method: method,
  value: unknown,
): z.infer<(typeof paramsOf)[method]> {
  const parsed = paramsOf[method].safeParse(value)
  if (parsed.success) return parsed.data as z.infer<(typeof paramsOf)[method]>
  const issue = parsed.error.issues[0]
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : ''
  throw new RpcError(-32602, `Invalid params: ${where}${issue?.message ?? 'expected an object'}`)
}

export async function createRelay(options: RelayOptions = {}): Promise<Relay> {
  const host = options.host ?? '127.0.0.1'
  const subscribers = new Map<string, Set<Client>>()
  const stored = new Map<string, Stored[]>()
  const clients = new Set<Client>()
  let nextRequestId = Date.now() * 1000

  const wss = new WebSocketServer({ host, port: options.port ?? 0 })
  await new Promise<void>((resolve, reject) => {
    wss.once('listening', resolve)
    wss.once('error', reject)
  })
  const { port } = wss.address() as AddressInfo

  const send = (client: Client, payload: unknown) => {
    if (client.socket.readyState === client.socket.OPEN) client.socket.send(stringifyJson(payload))
  }

  const deliver = (client: Client, item: Stored) => {
    const subscriptionId = client.subscriptions.get(item.topic)
    if (subscriptionId === undefined || item.deliveredTo.has(client.key)) return
    item.deliveredTo.add(client.key)
    const id = nextRequestId++
    client.unacknowledged.set(String(id), item)
    send(client, {
      id,
      jsonrpc: '2.0',
      method: 'irn_subscription',
      params: { id: subscriptionId, data: toData(item) },
    })
  }

  /** Messages kept for a topic, oldest first, without the expired ones. */
  const kept = (topic: string): Stored[] => {
    const list = stored.get(topic)
    if (!list) return []
    const now = Date.now()
    const live = list.filter((item) => item.expiresAt > now)
    if (live.length === 0) stored.delete(topic)
    else if (live.length !== list.length) stored.set(topic, live)
    return live
  }

  const publish = (
    publisher: Client,
    params: { topic: string; message: string; ttl?: number; tag?: number; attestation?: string },
  ) => {
    const publishedAt = Date.now()
    const ttl = params.ttl ?? DEFAULT_TTL
    const item: Stored = {
      topic: params.topic,
      message: params.message,
      publishedAt,
      expiresAt: publishedAt + ttl * 1000,
      tag: params.tag,
      attestation: params.attestation,
      deliveredTo: new Set([publisher.key]),
    }
    if (ttl > 0) stored.set(params.topic, [...kept(params.topic), item])
    for (const client of subscribers.get(params.topic) ?? []) deliver(client, item)
  }

  const subscribe = (client: Client, topic: string): string => {
    const id = client.subscriptions.get(topic) ?? subscriptionId(topic, client.key)
    client.subscriptions.set(topic, id)
    const set = subscribers.get(topic) ?? new Set()
    set.add(client)
    subscribers.set(topic, set)
    return id
  }

  const unsubscribe = (client: Client, topic: string) => {
    client.subscriptions.delete(topic)
    const set = subscribers.get(topic)
    set?.delete(client)
    if (set?.size === 0) subscribers.delete(topic)
  }

  /** After answering a subscribe: what was published on the topics before. */
  const deliverKept = (client: Client, topics: readonly string[]) => {
    for (const topic of topics) for (const item of kept(topic)) deliver(client, item)
  }

  /** Runs one request; returns its result and what to do once the answer is sent. */
  function handle(
    client: Client,
    method: string,
    params: unknown,
  ): { result: unknown; afterAnswer?: () => void } {
    switch (method) {
      case 'irn_subscribe': {
        const { topic } = readParams(method, params)
        return { result: subscribe(client, topic), afterAnswer: () => deliverKept(client, [topic]) }
      }

      case 'irn_batchSubscribe': {
        const { topics } = readParams(method, params)
        return {
          result: topics.map((topic) => subscribe(client, topic)),
          afterAnswer: () => deliverKept(client, topics),
        }
      }

      case 'irn_unsubscribe': {
        const { topic } = readParams(method, params)
        unsubscribe(client, topic)
        return { result: true }
      }

      case 'irn_batchUnsubscribe': {
        const { subscriptions } = readParams(method, params)
        for (const { topic } of subscriptions) unsubscribe(client, topic)
        return { result: true }
      }

      case 'irn_publish': {
        publish(client, readParams(method, params))
        return { result: true }
      }

      case 'irn_batchPublish': {
        const { messages } = readParams(method, params)
        for (const message of messages) publish(client, message)
        return { result: true }
      }

      case 'irn_batchFetchMessages': {
        const { topics } = readParams(method, params)
        const messages = topics.flatMap((topic) =>
          kept(topic)
            .filter((item) => !item.deliveredTo.has(client.key))
            .map((item) => {
              item.deliveredTo.add(client.key)
              return toData(item)
            }),
        )
        return { result: { messages, hasMore: false } }
      }

      case 'wc_proposeSession': {
        const { pairingTopic, sessionProposal, ttl, attestation } = readParams(method, params)
        subscribe(client, pairingTopic)
        publish(client, {
          topic: pairingTopic,
          message: sessionProposal,
          ttl,
          tag: tags.sessionPropose,
          attestation,
        })
        return { result: true }
      }

      case 'wc_approveSession': {
        const {
          pairingTopic,
          sessionTopic,
          sessionProposalResponse,
          sessionSettlementRequest,
          ttl,
        } = readParams(method, params)
        subscribe(client, sessionTopic)
        publish(client, {
          topic: pairingTopic,
          message: sessionProposalResponse,
          ttl,
          tag: tags.sessionProposeResponse,
        })
        publish(client, {
          topic: sessionTopic,
          message: sessionSettlementRequest,
          ttl,
          tag: tags.sessionSettle,
        })
        return { result: true }
      }

      default:
        throw new RpcError(-32601, `Method not found: ${method}`)
    }
  }

  const onMessage = (client: Client, data: RawData) => {
    let payload: unknown
    try {
      payload = parseJson(data.toString())
    } catch {
      send(client, { id: null, jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } })
      return
    }
    const envelope = Envelope.safeParse(payload)
    if (!envelope.success) {
      send(client, {
        id: null,
        jsonrpc: '2.0',
        error: { code: -32600, message: 'Invalid Request' },
      })
      return
    }
    const { method, params } = envelope.data
    const id = envelope.data.id ?? null

    // A client's answer to an irn_subscription: the message is theirs now.
    if (method === undefined) {
      if (id !== null) client.unacknowledged.delete(String(id))
      return
    }
    if (typeof method !== 'string') {
      send(client, { id, jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request' } })
      return
    }
    try {
      const { result, afterAnswer } = handle(client, method, params)
      send(client, { id, jsonrpc: '2.0', result })
      afterAnswer?.()
    } catch (error) {
      const { code, message } =
        error instanceof RpcError ? error : { code: -32603, message: 'Internal error' }
      send(client, { id, jsonrpc: '2.0', error: { code, message } })
    }
  }

  const onClose = (client: Client) => {
    clients.delete(client)
    for (const topic of [...client.subscriptions.keys()]) unsubscribe(client, topic)
    // What this socket never acknowledged goes to the client's other sockets, or waits for it.
    const unacknowledged = [...client.unacknowledged.values()]
    client.unacknowledged.clear()
    for (const item of unacknowledged) {
      item.deliveredTo.delete(client.key)
      for (const other of subscribers.get(item.topic) ?? [])
        if (other.key === client.key) deliver(other, item)
    }
  }

  wss.on('connection', (socket: WebSocket, request: IncomingMessage) => {
    const client: Client = {
      socket,
      key: clientKey(request),
      alive: true,
      subscriptions: new Map(),
      unacknowledged: new Map(),
    }
    clients.add(client)
    socket.on('pong', () => {
      client.alive = true
    })
    socket.on('message', (data) => onMessage(client, data))
    socket.on('close', () => onClose(client))
    socket.on('error', () => socket.terminate())
  })

  const heartbeat = setInterval(() => {
    for (const topic of [...stored.keys()]) kept(topic)
    for (const client of clients) {
      if (!client.alive) {
        client.socket.terminate()
        continue
      }
      client.alive = false
      client.socket.ping()
    }
  }, PING_INTERVAL)
  heartbeat.unref()

  let closing: Promise<void> | undefined
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      clearInterval(heartbeat)
      for (const client of clients) client.socket.close(1001, 'relay closing')
      // Sockets that do not finish the closing handshake in time are cut.
      const cut = setTimeout(() => {
        for (const client of clients) client.socket.terminate()
      }, 1000)
      cut.unref()
      wss.close(() => {
        clearTimeout(cut)
        resolve()
      })
    })
    return closing
  }

  return { url: `ws://${host}:${port}`, port, close }
}

/** A message as the clients receive it (`irn_subscription`'s `data`, a fetched message). */
function toData(item: Stored) {
  return {
    topic: item.topic,
    message: item.message,
    publishedAt: item.publishedAt,
    ...(item.tag === undefined ? {} : { tag: item.tag }),
    ...(item.attestation === undefined ? {} : { attestation: item.attestation }),
  }
}

/** The client's did:key from the `iss` of its auth JWT (not verified), or a fresh random key. */
function clientKey(request: IncomingMessage): string {
  const auth = new URL(request.url ?? '/', 'ws://relay').searchParams.get('auth')
  if (auth) {
    try {
      const { iss } = decodeJwt(auth)
      if (iss) return iss
    } catch {
      // Not a JWT: the client is anonymous.
    }
  }
  return `anonymous:${randomUUID()}`
}

/** The id the clients compute for a subscription: sha256(topic + client id), hex. */
function subscriptionId(topic: string, key: string): string {
  return createHash('sha256')
    .update(topic + key)
    .digest('hex')
}

const BIGINT = '\u0000bigint:'

/**
 * JSON.parse keeping integers beyond 2^53 exact (as bigint): the clients' request ids
 * are such numbers and must come back as they were sent.
 */
function parseJson(text: string): unknown {
  const marked = text.replace(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g, (token) =>
    /^-?\d+$/.test(token) && !Number.isSafeInteger(Number(token))
      ? `"\\u0000bigint:${token}"`
      : token,
  )
  return JSON.parse(marked, (_key, value: unknown) =>
    typeof value === 'string' && value.startsWith(BIGINT)
      ? BigInt(value.slice(BIGINT.length))
      : value,
  )
}

/** JSON.stringify writing bigints as plain JSON numbers. */
function stringifyJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === 'bigint' ? `${BIGINT}${item}` : item,
  ).replace(/"\\u0000bigint:(-?\d+)"/g, '$1')
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const relay = await createRelay({ port: Number(process.env.RELAY_PORT ?? ports.relay) })
  console.log(`WalletConnect relay stand-in on ${relay.url}`)
  const stop = () => {
    relay.close().then(
      () => process.exit(0),
      () => process.exit(1),
    )
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}
