/**
 * Sends the native currency or an ERC-20 token from the connected account and
 * waits for the receipt, at most 25 s (the seed's confirmation timeout).
 */
import { transactionConfirmationTimeout } from '@porthole/protocol/Constants'
import { type Address, erc20Abi, type Hash } from 'viem'
import { sendTransaction, waitForTransactionReceipt, writeContract } from 'wagmi/actions'
import type { SendToken } from '../../state/sendForm.js'
import { evmConnection } from './connection.js'

export const toEvmAddress = (address: string): Address =>
  (address.trim().startsWith('0x') ? address.trim() : `0x${address.trim()}`) as Address

/** Asks the wallet to send; resolves with the transaction hash once it is signed and sent. */
export async function submitSend(parameters: {
  token: SendToken
  amount: bigint
  receiver: string
  chainId: number
}): Promise<Hash> {
  const { token, amount, receiver, chainId } = parameters
  const config = await evmConnection.ready
  const to = toEvmAddress(receiver)
  if (token.kind === 'native') return sendTransaction(config, { to, value: amount, chainId })
  return writeContract(config, {
    address: token.address as Address,
    abi: erc20Abi,
    functionName: 'transfer',
    args: [to, amount],
    chainId,
  })
}

export async function waitForSend(hash: Hash, chainId: number) {
  const config = await evmConnection.ready
  return waitForTransactionReceipt(config, {
    hash,
    chainId,
    timeout: transactionConfirmationTimeout,
  })
}
