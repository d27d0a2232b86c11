/**
 * A WalletConnect session's Solana accounts as a `SolanaWallet`: the pairing
 * is wagmi's connector's (it proposes the project's Solana networks too);
 * `walletConnect.ts` reads the session and sends WalletConnect's Solana RPC.
 */

import { base58, base64 } from '@scure/base'
import { walletConnectId } from '../../data/connectList.js'
import { fromSignature } from './transaction.js'
import type { SolanaWallet } from './wallet.js'
import { disconnectSolana, requestSolana, solanaSession } from './walletConnect.js'

/** The address of a CAIP-10 `solana:<ref>:<address>` account. */
const addressOf = (account: string) => account.split(':')[2] ?? ''

export function walletConnectWallet(): SolanaWallet {
  return {
    id: walletConnectId,
    name: 'WalletConnect',
    networks: () => solanaSession()?.chains ?? [],

    async connect() {
      const [account] = solanaSession()?.accounts ?? []
      return account ? addressOf(account) : null
    },

    disconnect: disconnectSolana,

    async signMessage(address, message, caipNetworkId) {
      const { signature } = await requestSolana(
        'solana_signMessage',
        { message: base58.encode(message), pubkey: address },
        caipNetworkId,
      )
      return base58.decode(signature)
    },

    async signTransaction(address, transaction, caipNetworkId) {
      const result = await requestSolana(
        'solana_signTransaction',
        { transaction: base64.encode(transaction) },
        caipNetworkId,
      )
      // A wallet may answer the signed transaction, or only its signature.
      return result.transaction !== undefined
        ? base64.decode(result.transaction)
        : fromSignature(transaction, address, base58.decode(result.signature ?? ''))
    },

    async signAndSendTransaction(_address, transaction, caipNetworkId, options) {
      const { signature } = await requestSolana(
        'solana_signAndSendTransaction',
        { transaction: base64.encode(transaction), ...(options ? { sendOptions: options } : {}) },
        caipNetworkId,
      )
      return signature
    },
  }
}
