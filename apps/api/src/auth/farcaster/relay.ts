/**
 * Sign In With Farcaster (SIWF) through a Farcaster auth relay, as AuthKit
 * does it, without AuthKit.
 *
 * - The relay client (`createFarcasterRelayClient`) opens a channel
 *   (`POST /v1/channel`) and reads its status (`GET /v1/channel/status`,
 *   `Authorization: Bearer <channelToken>`): pending until the person's
 *   Farcaster app has posted its signed message to the channel.
 * - The verifier (`createFarcasterVerifier`) checks what the relay hands
 *   back, trusting none of it: the message is an EIP-4361 (SIWE) message for
 *   our domain and URI, with our nonce, chain id 10, in its validity window,
 *   naming the fid as a `farcaster://fid/<fid>` resource; the signature is
 *   the message's address's (recovered locally, else EIP-1271 / ERC-6492 on
 *   chain); and that address is the fid's custody address on the Farcaster
 *   IdRegistry (`custodyOf(fid)`), read through the API's RPC upstream of
 *   `FARCASTER_CHAIN`.
 *
 * Channel tokens, nonces, messages and signatures never go into an error
 * message: errors name the step and an HTTP status only.
 */
import {
  createPublicClient,
  type Hex,
  http,
  isAddressEqual,
  type PublicClient,
  parseAbi,
  recoverMessageAddress,
} from 'viem'
import { parseSiweMessage } from 'viem/siwe'
import { z } from 'zod'
import { BaseError } from '../../http/errors.js'

/** Seconds a request to the relay may take. */
export const relayTimeoutSeconds = 10

/** The chain id every Farcaster sign-in message names (Optimism), whatever chain the registry is read on. */
export const farcasterMessageChainId = 10

/** The IdRegistry's one function read here. */
export const idRegistryAbi = parseAbi(['function custodyOf(uint256 fid) view returns (address)'])

/** The relay could not be reached, or answered what the protocol does not allow. */
export class FarcasterRelayError extends BaseError {
  override name = 'FarcasterRelayError'
}

/** A sign-in the relay handed back is not valid: it must not sign anyone in. */
export class FarcasterInvalidError extends BaseError {
  override name = 'FarcasterInvalidError'
}

/** The chain could not be asked (RPC upstream down, or another chain): the sign-in is undecided. */
export class FarcasterChainError extends BaseError {
  override name = 'FarcasterChainError'
}

/**
 * The relay's answers. They are an upstream's, not our callers' input, and
 * the real relay adds keys of its own (`signatureParams`, `metadata`, …):
 * unknown keys are dropped, every field we read is bounded.
 */
const text = (max: number) => z.string().max(max)
const Fid = z.number().int().positive().max(Number.MAX_SAFE_INTEGER)
const ChannelCreated = z.object({
  channelToken: z.string().min(1).max(256),
  url: z.url({ protocol: /^https$/ }).max(4096),
  nonce: text(256),
})
const Pending = z.object({ state: z.literal('pending'), nonce: text(256) })
const Completed = z.object({
  state: z.literal('completed'),
  nonce: text(256),
  message: z.string().min(1).max(8192),
  signature: z.string().regex(/^0x[0-9a-fA-F]{2,4096}$/),
  fid: Fid,
  username: text(256).nullish(),
  displayName: text(1024).nullish(),
  pfpUrl: text(4096).nullish(),
  bio: text(4096).nullish(),
})
export type FarcasterCompleted = z.infer<typeof Completed>

export type ChannelStatus =
  | { state: 'pending' }
  | FarcasterCompleted
  /** The relay does not know the channel (any more): it expired there. */
  | { state: 'gone' }

export type FarcasterRelayClient = {
  createChannel(parameters: {
    siweUri: string
    domain: string
    nonce: string
  }): Promise<z.infer<typeof ChannelCreated>>
  status(channelToken: string): Promise<ChannelStatus>
}

export function createFarcasterRelayClient({
  relayUrl,
  fetch: customFetch = (input, init) => globalThis.fetch(input, init),
}: {
  /** `FARCASTER_RELAY_URL`, without a trailing slash. */
  relayUrl: string
  fetch?: typeof globalThis.fetch | undefined
}): FarcasterRelayClient {
  const call = async (
    step: string,
    path: string,
    init: RequestInit,
  ): Promise<{ status: number; json: unknown }> => {
    let response: Response
    let json: unknown
    try {
      response = await customFetch(`${relayUrl}${path}`, {
        ...init,
        redirect: 'error',
        signal: AbortSignal.timeout(relayTimeoutSeconds * 1000),
      })
      const body = await response.text()
      json = body.length > 64 * 1024 ? undefined : JSON.parse(body)
    } catch (error) {
      const kind = (error as { name?: unknown } | null)?.name
      throw new FarcasterRelayError(
        `Farcaster relay: ${step} failed (${typeof kind === 'string' ? kind.slice(0, 40) : 'error'})`,
      )
    }
    return { status: response.status, json }
  }
  const unexpected = (step: string, status: number) =>
    new FarcasterRelayError(`Farcaster relay: ${step} answered HTTP ${status} unexpectedly`)

  return {
    async createChannel({ siweUri, domain, nonce }) {
      const step = 'creating a channel'
      const { status, json } = await call(step, '/v1/channel', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ siweUri, domain, nonce }),
      })
      const created = ChannelCreated.safeParse(json)
      if ((status !== 200 && status !== 201) || !created.success) throw unexpected(step, status)
      if (created.data.nonce !== nonce)
        throw new FarcasterRelayError('Farcaster relay: the channel does not carry our nonce')
      return created.data
    },
    async status(channelToken) {
      const step = 'reading a channel'
      const { status, json } = await call(step, '/v1/channel/status', {
        method: 'GET',
        headers: { authorization: `Bearer ${channelToken}`, accept: 'application/json' },
      })
      if (status === 401 || status === 404) return { state: 'gone' }
      if (status === 202 && Pending.safeParse(json).success) return { state: 'pending' }
      if (status === 200) {
        const completed = Completed.safeParse(json)
        if (completed.success) return completed.data
        // A completed channel whose fields are malformed is an invalid sign-in, not an outage.
        if ((json as { state?: unknown } | null)?.state === 'completed')
          throw new FarcasterInvalidError('the relay handed back a malformed sign-in')
      }
      throw unexpected(step, status)
    },
  }
}

export type FarcasterExpectation = {
  /** The SIWE `domain` the channel was opened with. */
  domain: string
  /** The SIWE `uri` the channel was opened with. */
  siweUri: string
  /** The channel's nonce, made by the API. */
  nonce: string
  /** The time the message's validity window is checked against. */
  now: Date
}

/** Checks a completed sign-in; resolves to the fid and custody address, or throws. */
export type FarcasterVerifier = (
  completed: FarcasterCompleted,
  expected: FarcasterExpectation,
) => Promise<{ fid: number; custody: Hex }>

export function createFarcasterVerifier({
  rpcUpstreams,
  chain,
  idRegistry,
  timeoutMs,
}: {
  rpcUpstreams: Record<string, string>
  /** `FARCASTER_CHAIN`: the IdRegistry's chain (CAIP-2 `eip155:<id>`). */
  chain: string
  /** `FARCASTER_ID_REGISTRY`. */
  idRegistry: Hex
  timeoutMs: number
}): FarcasterVerifier {
  let client: PublicClient | undefined
  const clientOf = (): PublicClient => {
    const upstream = Object.hasOwn(rpcUpstreams, chain) ? rpcUpstreams[chain] : undefined
    if (upstream === undefined)
      throw new FarcasterChainError(`No RPC upstream for ${chain} to read the IdRegistry on`)
    client ??= createPublicClient({
      transport: http(upstream, { retryCount: 0, timeout: timeoutMs }),
    })
    return client
  }
  const chainNumber = Number(chain.slice('eip155:'.length))

  return async (completed, expected) => {
    const invalid = (reason: string) => new FarcasterInvalidError(`Farcaster sign-in: ${reason}`)
    if (completed.nonce !== expected.nonce) throw invalid('the channel carries another nonce')
    const message = parseSiweMessage(completed.message)
    const { address } = message
    if (address === undefined || message.version !== '1') throw invalid('not a SIWE message')
    if (message.domain !== expected.domain) throw invalid('the message is for another domain')
    if (message.uri !== expected.siweUri) throw invalid('the message is for another URI')
    if (message.nonce !== expected.nonce) throw invalid('the message carries another nonce')
    if (message.chainId !== farcasterMessageChainId)
      throw invalid(`the message names chain ${message.chainId}, not ${farcasterMessageChainId}`)
    const time = expected.now.getTime()
    if (message.expirationTime !== undefined && message.expirationTime.getTime() <= time)
      throw invalid('the message has expired')
    if (message.notBefore !== undefined && message.notBefore.getTime() > time)
      throw invalid('the message is not valid yet')
    const fids = (message.resources ?? []).filter((resource) =>
      resource.startsWith('farcaster://fid/'),
    )
    if (fids.length !== 1 || fids[0] !== `farcaster://fid/${completed.fid}`)
      throw invalid('the message does not name the fid as its one farcaster:// resource')

    const signature = completed.signature as Hex
    const signedLocally = await recoverMessageAddress({ message: completed.message, signature })
      .then((signer) => isAddressEqual(signer, address))
      .catch(() => false)
    const public_ = clientOf()
    // A failed read and an upstream that serves another chain are one answer: undecided.
    const ask = async <result>(read: () => Promise<result>): Promise<result> => {
      const answers = await Promise.all([read(), public_.getChainId()]).catch(() => undefined)
      if (answers === undefined || answers[1] !== chainNumber)
        throw new FarcasterChainError(`Farcaster sign-in: ${chain} could not be asked`)
      return answers[0]
    }
    // Not an EOA's signature: a contract custody account (EIP-1271, ERC-6492).
    if (!signedLocally) {
      const valid = await ask(() =>
        public_.verifyMessage({ address, message: completed.message, signature }),
      )
      if (!valid) throw invalid('the signature is not the message address’s')
    }
    const custody = await ask(() =>
      public_.readContract({
        address: idRegistry,
        abi: idRegistryAbi,
        functionName: 'custodyOf',
        args: [BigInt(completed.fid)],
      }),
    )
    if (!isAddressEqual(custody, address))
      throw invalid('the signer is not the custody address of the fid')
    return { fid: completed.fid, custody }
  }
}
