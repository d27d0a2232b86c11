import { UnsupportedChainError } from '../lib/errors.js'
import { setChainId } from '../wallet/session.js'
import type { Handler } from './handler.js'

const supported = /^(eip155:[1-9]\d{0,14}|solana:[1-9A-HJ-NP-Za-km-z]{32})$/

/** 4902 'Unsupported chain' for anything but an EVM (`eip155:<id>`) or Solana network. */
export function assertSupportedChain(chainId: string): void {
  if (!supported.test(chainId)) throw new UnsupportedChainError()
}

/** `switchNetwork`: makes `chainId` the network in use, remembered across reloads. */
export const switchNetwork = (async ({ chainId }, context) => {
  assertSupportedChain(chainId)
  await setChainId(context, chainId)
  return { chainId }
}) satisfies Handler<'switchNetwork'>
