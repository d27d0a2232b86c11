/**
 * The host-wallet bridge: browser extensions inject into the top page, not into
 * the widget's frame, so the loader finds the page's wallets (EIP-6963, else a
 * legacy `window.ethereum`) and offers them to the widget, which alone may
 * drive them over the private port (DESIGN.md section 1).
 */
import { DisconnectedError, RpcError } from '@porthole/protocol/Errors'
import type { HostWallet, HostWalletEvent, HostWalletRequest } from '@porthole/protocol/Host'
import { maxHostWallets, maxIconLength, providerEvents } from '@porthole/protocol/HostGuards'

type Eip1193 = {
  request(args: { method: string; params?: unknown }): Promise<unknown>
  on?(event: string, listener: (data: unknown) => void): unknown
}

type Found = { info: HostWallet; provider: Eip1193; listening?: boolean }

/** The uuid of the legacy `window.ethereum`, offered only when nothing announces itself. */
export const legacyUuid = 'window.ethereum'

const isText = (value: unknown) =>
  typeof value === 'string' && value.length > 0 && value.length <= 128

// JSON-RPC's internal error, for a wallet error without a code (ErrorCode would bring its whole table).
const internalError = -32603

/**
 * A wallet's error as an `RpcError` that may cross: its EIP-1193 code and
 * message as the wallet gave them, nothing else (no stack, no data). One
 * without a message reaches the widget as 'An error occurred'. (Protocol's
 * `WalletError`, for viem's errors, reads `shortMessage` and a cause's code:
 * more than the loader's budget allows, and not what a page's wallet throws.)
 */
export const fromWalletError = (error: unknown) => {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  return new RpcError(
    Number.isSafeInteger(code) ? (code as number) : internalError,
    typeof message === 'string' ? message.slice(0, 512) : '',
  )
}

/**
 * Plain JSON, so what a wallet returns always clones and parses on the other
 * side; an error (an event's data) as `{ code, message }`.
 */
const toJson = (value: unknown): unknown =>
  value === undefined
    ? null
    : JSON.parse(JSON.stringify(value instanceof Error ? fromWalletError(value) : value))

export type HostWallets = {
  list(): HostWallet[]
  request(request: HostWalletRequest): Promise<unknown>
  stop(): void
}

/**
 * Starts discovery. `onChange` receives the list on every new wallet; `onEvent`
 * every EIP-1193 event of a wallet the widget has sent a request to. `own` is
 * Porthole's provider, never offered to itself.
 */
export function discoverHostWallets(
  own: unknown,
  onChange: (wallets: HostWallet[]) => void,
  onEvent: (event: HostWalletEvent) => void,
): HostWallets {
  const found = new Map<string, Found>()

  const legacy = (): Found | undefined => {
    const provider = (window as { ethereum?: Eip1193 }).ethereum
    if (found.size || typeof provider?.request !== 'function' || provider === own) return
    return { info: { uuid: legacyUuid, name: 'Browser Wallet', icon: '', rdns: '' }, provider }
  }
  const all = (): Found[] => {
    const fallback = legacy()
    return fallback ? [fallback] : [...found.values()]
  }

  const onAnnounce = (event: Event) => {
    const { info, provider } = ((event as CustomEvent).detail ?? {}) as {
      info?: Partial<HostWallet>
      provider?: Eip1193
    }
    if (!info || typeof provider?.request !== 'function' || provider === own) return
    const { uuid, name, icon, rdns } = info as HostWallet
    if (![uuid, name, rdns].every(isText) || found.has(uuid) || found.size >= maxHostWallets) return
    const image =
      typeof icon === 'string' && icon.length <= maxIconLength && icon.startsWith('data:image/')
        ? icon
        : ''
    found.set(uuid, { info: { uuid, name, icon: image, rdns }, provider })
    onChange(all().map(({ info }) => info))
  }

  addEventListener('eip6963:announceProvider', onAnnounce)
  dispatchEvent(new Event('eip6963:requestProvider'))

  return {
    list: () => all().map(({ info }) => info),
    request({ uuid, method, params }) {
      const wallet = all().find(({ info }) => info.uuid === uuid)
      if (!wallet) return Promise.reject(new DisconnectedError('That wallet is gone.'))
      if (!wallet.listening) {
        wallet.listening = true
        for (const event of providerEvents)
          wallet.provider.on?.(event, (data) =>
            onEvent({
              uuid,
              event,
              data: toJson(data),
            }),
          )
      }
      return wallet.provider
        .request(params === undefined ? { method } : { method, params })
        .then(toJson, (error: unknown) => {
          throw fromWalletError(error)
        })
    },
    stop: () => removeEventListener('eip6963:announceProvider', onAnnounce),
  }
}
