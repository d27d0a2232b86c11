/** Test-only code: the build tests fail on a bundle that holds this marker. */
;(globalThis as Record<string, unknown>)['porthole:test-only'] = true

/**
 * The host page as the widget sees it, with a Wallet Standard wallet behind
 * the loader's end of the host channel (over a MessageChannel): the wallet
 * holds a keypair and answers `standardWalletRequest` as the loader relays
 * a real wallet (bytes in base64, accounts by address, a decline as 4001),
 * sending to the tests' Solana node (`solanaRpc.ts`).
 * The widget's side is the real one: `connectHost` and the chain adapters.
 */
import * as Channel from '@porthole/protocol/Channel'
import * as Contract from '@porthole/protocol/Contract'
import { ErrorCode, RpcError } from '@porthole/protocol/Errors'
import * as Host from '@porthole/protocol/Host'
import { base58, base64 } from '@scure/base'
import { loadChain, namespaceOfRequest } from '../src/lib/chains/index.js'
import { connectHost } from '../src/lib/host/channel.js'
import { store } from '../src/lib/state/store.js'
import { fundedKeypair, solanaRpc } from './solanaRpc.js'
import { signMessage, signTransaction } from './solanaWallet.js'
import { hostOrigin } from './view.js'

/** The wallet's account: the view tests' funded one (10 SOL, 1 000 PTT at the start). */
export const keypair = fundedKeypair
export const address = keypair.publicKey.toBase58()

export const standardWallet: Host.StandardWallet = {
  id: 'standard:0',
  name: 'Test Solana Wallet',
  icon: '',
  chains: ['solana:localnet', 'solana:devnet'],
  features: [...Host.standardFeatures],
  accounts: [],
}

/**
 * What the wallet does on a request: do it, or decline as the user would
 * (4001); `lies` signs other bytes than it was given (a hostile host's wallet).
 */
export const behaviour = { declines: false, lies: false }

/** The requests the wallet received, in order. */
export const requests: Host.StandardWalletRequest[] = []

/** The states the host received, in order. */
export const hostStates: Host.State[] = []

let loader: Channel.Channel<Host.HostSpec, Host.WidgetSpec> | undefined
/** The wallet as the loader lists it now. */
let listed: Host.StandardWallet = standardWallet

const decline = () => {
  throw new RpcError(ErrorCode.userRejected, 'User rejected the request.')
}

/** The wallet's listing changed (its `standard:events` 'change'): the loader sends the list again. */
export function listWallets(wallets: Host.StandardWallet[]): void {
  listed = wallets[0] ?? standardWallet
  loader?.emit('standardWallets', { wallets })
}

async function answer({ feature, input }: Host.StandardWalletRequest): Promise<unknown> {
  switch (feature) {
    case 'standard:connect':
      if (behaviour.declines && !input.silent) decline()
      listWallets([{ ...listed, accounts: [address] }])
      return { accounts: [address] }
    case 'standard:disconnect':
      listWallets([{ ...listed, accounts: [] }])
      return null
    case 'solana:signMessage': {
      if (behaviour.declines) decline()
      const given = base64.decode(input.message as string)
      const message = behaviour.lies ? new TextEncoder().encode('something else') : given
      return {
        signedMessage: input.message,
        signature: base64.encode(signMessage(keypair, message)),
      }
    }
    case 'solana:signTransaction': {
      if (behaviour.declines) decline()
      const signed = signTransaction(keypair, base64.decode(input.transaction as string))
      return { signedTransaction: base64.encode(signed) }
    }
    case 'solana:signAndSendTransaction': {
      if (behaviour.declines) decline()
      const signed = signTransaction(keypair, base64.decode(input.transaction as string))
      const signature = await solanaRpc('sendTransaction', [
        base64.encode(signed),
        { encoding: 'base64' },
      ])
      return { signature: base64.encode(base58.decode(signature as string)) }
    }
  }
}

/** Opens the host channel and lists the Standard wallet, as the loader does after the handshake. */
export async function openHost(wallets: Host.StandardWallet[] = [standardWallet]) {
  const { port1, port2 } = new MessageChannel()
  loader = Channel.create({
    port: port1,
    origin: location.origin,
    parsers: Contract.parsers(Host.host, Host.widget),
  })
  loader.handle('standardWalletRequest', async (request) => {
    requests.push(request)
    return answer(request)
  })
  loader.on('state', (state) => hostStates.push(state))
  store.setState({ hostOrigin })
  connectHost({
    port: port2,
    origin: hostOrigin,
    chain: (method) => loadChain(namespaceOfRequest(method)),
  })
  listWallets(wallets)
  await new Promise<void>((resolve) => {
    const check = () => store.getState().standardWallets.length > 0
    if (check()) return resolve()
    const stop = store.subscribe(() => {
      if (!check()) return
      stop()
      resolve()
    })
  })
  return {
    /** The host's provider request, as Porthole's Standard wallet on the host page makes it. */
    request: (method: string, params?: unknown) =>
      loader?.request(
        'providerRequest',
        params === undefined ? { method } : ({ method, params } as Host.ProviderRequest),
      ),
  }
}

export const signatureOf = (bytes: Uint8Array) => base58.encode(bytes)
