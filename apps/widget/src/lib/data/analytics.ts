/**
 * Analytics events and error reports (`POST /e`), sent only when the
 * project's analytics are on (`GET /getAnalyticsConfig`); a failure is
 * ignored: analytics never get in the visitor's way.
 *
 * What is sent (README, Analytics): the event's name, the host's origin, and
 * for some events a wallet (`walletLabel`: never a name the host chose), a
 * namespace, a network (CAIP-2) or a view. Never an address, an amount, a
 * message, an email or a key.
 */
import { AnalyticsConfig } from '@porthole/protocol/Api'
import { queryOptions } from '@tanstack/react-query'
import { projectId } from '../env.js'
import { store } from '../state/store.js'
import { isUserRejection } from '../walletErrors.js'
import { api } from './api.js'
import { sdkType, sdkVersion } from './explorer.js'
import { queryClient } from './queryClient.js'

export const analyticsConfigQuery = queryOptions({
  queryKey: ['analyticsConfig'],
  queryFn: async ({ signal }) =>
    AnalyticsConfig.parse(await api.get('/getAnalyticsConfig', { params: { projectId }, signal })),
  staleTime: Number.POSITIVE_INFINITY,
})

/** The events a site owner sees (`npm run project -- stats`). */
export type TrackedEvent =
  | 'MODAL_OPEN'
  | 'MODAL_CLOSE'
  | 'SELECT_WALLET'
  | 'CONNECT_SUCCESS'
  | 'CONNECT_ERROR'
  | 'SWITCH_NETWORK'
  | 'SEND_SUCCESS'
  | 'SEND_ERROR'
  | 'SIWX_AUTH_SUCCESS'
  | 'SIWX_AUTH_ERROR'
  | 'ERROR_FETCH_TRANSACTIONS'

/** Flat, short values only (the API takes at most 32, each ≤ 1 KB). */
export type EventProperties = Record<string, string | number | boolean | null>

async function send(props: Record<string, unknown>): Promise<void> {
  try {
    const { isAnalyticsEnabled } = await queryClient.fetchQuery(analyticsConfigQuery)
    const { hostOrigin } = store.getState()
    if (!isAnalyticsEnabled || !hostOrigin) return
    await api.post('/e', {
      params: { projectId, st: sdkType, sv: sdkVersion },
      body: {
        eventId: crypto.randomUUID(),
        url: hostOrigin,
        domain: new URL(hostOrigin).host,
        timestamp: Date.now(),
        props,
      },
    })
  } catch {}
}

/** At most `limit` sends in any `windowMs`, counted here: `take(now)` says whether one may go. */
function sendBudget({ limit, windowMs }: { limit: number; windowMs: number }) {
  let sentAt: number[] = []
  return (now: number): boolean => {
    // (A time ahead of `now`, the clock set back, counts no more.)
    sentAt = sentAt.filter((at) => at <= now && now - at < windowMs)
    if (sentAt.length >= limit) return false
    sentAt.push(now)
    return true
  }
}

/**
 * At most 30 events in any 60 s from one widget: a host that opens and closes
 * the modal in a loop spends this budget, not the API's per-address one that
 * every site shares (red team, issue 16).
 */
export const trackLimit = { limit: 30, windowMs: 60_000 } as const
const takeTrack = sendBudget(trackLimit)

export function track(
  event: TrackedEvent,
  properties?: EventProperties,
  now: number = Date.now(),
): Promise<void> {
  if (!takeTrack(now)) return Promise.resolve()
  return send({ type: 'track', event, ...(properties ? { properties } : {}) })
}

/** A WalletConnect pairing's kind (not the protocol's name: the start-up bundle may not hold it, build.test.ts). */
const pairing = 'pairing'

/** A reverse-DNS id (EIP-6963's rdns, our own connector ids). */
const reverseDns = /^[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63}){1,7}$/i

/**
 * A wallet as the events name it: a reverse-DNS id, our registry's name, or a
 * kind; never the free text a host page announced as its wallet's name
 * (which could be anything, an email or an address: red team, issue 16).
 */
export function walletLabel(wallet: {
  connectorId: string | null
  name?: string | undefined
  imageId?: string | null | undefined
}): string {
  const { connectorId } = wallet
  if (connectorId !== null) {
    if (connectorId === 'walletConnect') return pairing
    return reverseDns.test(connectorId) ? connectorId.toLowerCase() : 'injected'
  }
  // No connector: a pairing, with a wallet of our registry (its name is ours) or any.
  return wallet.imageId && wallet.name ? wallet.name.slice(0, 64) : pairing
}

/** A connection attempt that failed (a host wallet's or a WalletConnect pairing's), by the wallet chosen. */
export function trackConnectError(reason: unknown): Promise<void> {
  const { connecting } = store.getState()
  return track('CONNECT_ERROR', {
    wallet: connecting ? walletLabel(connecting) : null,
    rejected: isUserRejection(reason),
  })
}

/**
 * An error's text without what would identify a visitor: EVM addresses and
 * hashes (0x and 40 or more hex digits), Solana-style base58 keys, emails.
 * Error messages are free text; a wallet's may quote any of them.
 */
export function redact(text: string): string {
  return text
    .replace(/0x[0-9a-fA-F]{40,}/g, '0x…')
    .replace(/[^\s@<>()"',;:]+@[^\s@<>()"',;:]+\.[A-Za-z]{2,}/g, '…@…')
    .replace(/\b[1-9A-HJ-NP-Za-km-z]{32,44}\b/g, '…')
}

/** SPEC 9: at most 5 error reports in any 60 s, counted here before the API counts them again. */
export const errorReportLimit = { limit: 5, windowMs: 60_000 } as const
const takeReport = sendBudget(errorReportLimit)

/** An error report (`type: 'error'`); false when the client's own limit held it back. */
export function reportError(
  event: string,
  error: unknown,
  now: number = Date.now(),
): { sent: Promise<void> } | false {
  if (!takeReport(now)) return false
  const { name, message, stack } =
    error instanceof Error ? error : { name: 'Error', message: String(error), stack: undefined }
  return {
    sent: send({
      type: 'error',
      event,
      errorType: name.slice(0, 256),
      errorMessage: redact(message).slice(0, 4096),
      ...(stack ? { stackTrace: redact(stack).slice(0, 16_384) } : {}),
    }),
  }
}

/**
 * Events read off the store's changes: the modal opened and closed, a wallet
 * chosen, a connection made (not a restored one). Returns the unsubscribe.
 */
export function trackStore(): () => void {
  let previous = store.getState()
  return store.subscribe(() => {
    const next = store.getState()
    const before = previous
    previous = next
    if (next.open !== before.open)
      void track(next.open ? 'MODAL_OPEN' : 'MODAL_CLOSE', {
        view: next.history.at(-1) ?? null,
      })
    if (next.connecting && next.connecting !== before.connecting)
      void track('SELECT_WALLET', { wallet: walletLabel(next.connecting) })
    const { connection } = next
    if (
      connection.status === 'connected' &&
      before.connection.status !== 'connected' &&
      // A stored connection restored at load is not a new one.
      before.connection.status !== 'reconnecting' &&
      connection.namespace !== null
    )
      void track('CONNECT_SUCCESS', {
        wallet: walletLabel({ connectorId: connection.connectorId }),
        namespace: connection.namespace,
      })
  })
}
