/**
 * The Solana namespace's adapter (`ChainAdapter`, checked where
 * `../index.ts` registers it): the connection (`connection.ts`, over the
 * wallets of `wallet.ts`), its balances (`balances.ts`) and sends
 * (`send.ts`), all through the API's RPC proxy (`rpc.ts`) with web3.js and
 * spl-token.
 */
import { walletConnectId } from '../../data/connectList.js'
import { getBalance, getTokenBalances } from './balances.js'
import { connected, ready, solanaConnection } from './connection.js'
import { buildTransfer, waitForSignature } from './send.js'

export const solana = {
  ...solanaConnection,
  namespace: 'solana' as const,
  ready,

  getBalance,
  getTokenBalances,

  async send(parameters: {
    token: Parameters<typeof buildTransfer>[0]['token']
    amount: bigint
    receiver: string
    caipNetworkId: string
  }): Promise<string> {
    await ready
    const { wallet, address } = connected()
    const transaction = await buildTransfer({ ...parameters, from: address })
    return wallet.signAndSendTransaction(address, transaction, parameters.caipNetworkId)
  },

  waitForSend: async (id: string, caipNetworkId: string) => waitForSignature(id, caipNetworkId),

  /** A pairing is wagmi's connector's (`pairWalletConnect` in `../index.ts`); its Solana accounts connect here. */
  pairWalletConnect: async () => solanaConnection.connect(walletConnectId),
  cancelConnecting: async () => undefined,
}
