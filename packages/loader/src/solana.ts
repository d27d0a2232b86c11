/**
 * The Solana bridge (`dist/loader-solana.js`), the loader's second file. The
 * first script imports it only at the first sign of the Wallet Standard on
 * the page (`internal/walletStandard.ts`): a Standard wallet, or an app that
 * looks for wallets. It then
 *
 * - acts as an app: dispatches `wallet-standard:app-ready` with `{ register }`
 *   and answers each `wallet-standard:register-wallet`, offering the widget
 *   the page's Solana wallets and relaying its requests to them
 *   (`internal/standardWallets.ts`);
 * - acts as a wallet: registers Porthole with every app, answering each
 *   `wallet-standard:app-ready` and dispatching `wallet-standard:register-wallet`
 *   (`internal/portholeStandard.ts`).
 *
 * It talks to the widget only over the channel the first script hands it;
 * nothing of it is reachable from the page (no global, no window message).
 */
import type * as Channel from '@porthole/protocol/Channel'
import { InvalidParamsError, RpcError, toRpcError } from '@porthole/protocol/Errors'
import type { HostSpec, WidgetSpec } from '@porthole/protocol/Host'
import { parseStandardWalletRequest } from '@porthole/protocol/HostGuards'
import { createPortholeStandard, type Porthole } from './internal/portholeStandard.js'
import { attempt, createStandardWallets } from './internal/standardWallets.js'

type HostChannel = Channel.Channel<HostSpec, WidgetSpec>

export type SolanaBridge = {
  /** Serves the widget's channel (after each handshake). */
  connect(channel: HostChannel): void
  /** Stops listening and unregisters Porthole from the apps. */
  stop(): void
}

const registerWallet = 'wallet-standard:register-wallet'
const appReady = 'wallet-standard:app-ready'

type Detail = Event & { detail?: unknown }

/**
 * `HostRpcError` is the first script's `RpcError`: this file is a bundle of
 * its own, with its own copy of the class, and the first script's channel
 * lets only its own class cross (anything else becomes -32603).
 */
export function createSolanaBridge(
  porthole: Porthole,
  channel: HostChannel | undefined,
  HostRpcError: typeof RpcError = RpcError,
): SolanaBridge {
  const own = createPortholeStandard(porthole)
  let current = channel
  const wallets = createStandardWallets(own.wallet, (wallets) =>
    current?.emit('standardWallets', { wallets }),
  )
  const unregister: Array<() => void> = []
  const apps = new Set<unknown>()

  // As an app: every wallet registers with `api`, before or after.
  const api = Object.freeze({
    register(...registered: unknown[]) {
      for (const wallet of registered.slice(0, 64)) wallets.add(wallet)
      return () => {
        for (const wallet of registered) wallets.remove(wallet)
      }
    },
  })
  const onRegisterWallet = ({ detail }: Detail) => {
    if (typeof detail === 'function' && detail !== registerPorthole) attempt(() => detail(api))
  }

  // As a wallet: Porthole registers with every app's `register`, once each.
  const registerPorthole = (app: unknown) => {
    const register = attempt(() => (app as { register?: unknown })?.register)
    if (typeof register !== 'function' || register === api.register || apps.has(register)) return
    apps.add(register)
    const stop = attempt(() => register(own.wallet))
    if (typeof stop === 'function') unregister.push(() => attempt(stop as () => void))
  }
  const onAppReady = ({ detail }: Detail) => registerPorthole(detail)

  // Dispatched before listening, so its own events are not taken for the page's.
  dispatchEvent(new CustomEvent(appReady, { detail: api }))
  dispatchEvent(new CustomEvent(registerWallet, { detail: registerPorthole }))
  addEventListener(registerWallet, onRegisterWallet)
  addEventListener(appReady, onAppReady)

  const connect = (channel: HostChannel) => {
    current = channel
    channel.handle('standardWalletRequest', async (request) => {
      try {
        let parsed: ReturnType<typeof parseStandardWalletRequest>
        try {
          parsed = parseStandardWalletRequest(request)
        } catch {
          throw new InvalidParamsError('Invalid parameters for standardWalletRequest.')
        }
        return await wallets.request(parsed)
      } catch (error) {
        const { code, message, data } = toRpcError(error)
        throw new HostRpcError(code, message, data)
      }
    })
    wallets.resend()
  }
  if (channel) connect(channel)

  return {
    connect,
    stop() {
      removeEventListener(registerWallet, onRegisterWallet)
      removeEventListener(appReady, onAppReady)
      wallets.stop()
      own.stop()
      for (const stop of unregister.splice(0)) stop()
    },
  }
}
