/**
 * The host page as the widget sees it: the loader's end of the host channel
 * (over a MessageChannel), with one host wallet behind it that signs with a
 * local key. The widget's side is the real one: `connectHost`, the wallet
 * bridge, wagmi and the EVM layer.
 */
import * as Channel from '@porthole/protocol/Channel'
import * as Contract from '@porthole/protocol/Contract'
import { ErrorCode, RpcError } from '@porthole/protocol/Errors'
import * as Host from '@porthole/protocol/Host'
import { type Hex, numberToHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { loadChain } from '../src/lib/chains/index.js'
import { connectHost } from '../src/lib/host/channel.js'
import { store } from '../src/lib/state/store.js'
import { hostOrigin } from './view.js'

/** Anvil's first test key: a well-known key that holds nothing real. */
export const account = privateKeyToAccount(
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
)

export const hostWallet: Host.HostWallet = {
  uuid: 'b2f3c0de-0000-4000-8000-000000000001',
  name: 'Test Wallet',
  icon: '',
  rdns: 'com.example.wallet',
}

/** What the wallet does on a signature or switch request: do it, or decline as the user would (4001). */
export const wallet = { declines: false, chainId: 1 }

/** The requests the wallet received, in order. */
export const walletRequests: Array<{ method: string; params: unknown }> = []

/** The loader's end of the host channel, once `connectHostWallet` opened it. */
let loader: Channel.Channel<Host.HostSpec, Host.WidgetSpec> | undefined

/** Whether the site may see the account: from the first `eth_requestAccounts`, as in a real wallet. */
let authorized = false

/** The wallet goes to another network by itself (its user switched it there) and says so. */
export function moveWallet(chainId: number): void {
  wallet.chainId = chainId
  loader?.emit('hostWalletEvent', {
    uuid: hostWallet.uuid,
    event: 'chainChanged',
    data: numberToHex(chainId),
  })
}

async function answer(method: string, params: unknown): Promise<unknown> {
  walletRequests.push({ method, params })
  switch (method) {
    case 'eth_requestAccounts':
      authorized = true
      return [account.address]
    case 'eth_accounts':
      return authorized ? [account.address] : []
    case 'eth_chainId':
      return numberToHex(wallet.chainId)
    case 'wallet_requestPermissions':
    case 'wallet_revokePermissions':
      return []
    case 'personal_sign': {
      if (wallet.declines) throw new RpcError(ErrorCode.userRejected, 'User rejected the request.')
      const [message] = params as [Hex]
      return account.signMessage({ message: { raw: message } })
    }
    case 'wallet_switchEthereumChain': {
      if (wallet.declines) throw new RpcError(ErrorCode.userRejected, 'User rejected the request.')
      const [{ chainId }] = params as [{ chainId: Hex }]
      moveWallet(Number(chainId))
      return null
    }
    default:
      throw new RpcError(ErrorCode.unsupportedMethod, `${method} is not supported`)
  }
}

/**
 * Opens the host channel, offers the host wallet, loads the EVM layer and
 * connects the wallet as a click on it in Connect would. Once per test file:
 * the EVM layer, like the page, lives as long as the file.
 */
export async function connectHostWallet(): Promise<void> {
  const { port1, port2 } = new MessageChannel()
  loader = Channel.create({
    port: port1,
    origin: location.origin,
    parsers: Contract.parsers(Host.host, Host.widget),
  })
  loader.handle('hostWalletRequest', ({ method, params }) => answer(method, params))
  store.setState({ hostOrigin })
  connectHost({ port: port2, origin: hostOrigin, chain: () => loadChain() })
  loader.emit('hostWallets', { wallets: [hostWallet] })
  await new Promise<void>((resolve) => {
    const stop = store.subscribe(() => {
      if (store.getState().hostWallets.length === 0) return
      stop()
      resolve()
    })
  })
  await (await loadChain()).connect(hostWallet.rdns)
}
/** Test-only code: the build tests fail on a bundle that holds this marker. */
;(globalThis as Record<string, unknown>)['porthole:test-only'] = true
