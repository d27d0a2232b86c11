import { ErrorCode, RpcError } from '@porthole/protocol/Errors'
import type { SecureSpec } from '@porthole/protocol/Secure'
import { type Context, setChainId } from '../wallet/session.js'

type Params = SecureSpec['requests']['switchNetwork']['params']
type Result = SecureSpec['requests']['switchNetwork']['result']

const supported = /^(eip155:[1-9]\d{0,14}|solana:[1-9A-HJ-NP-Za-km-z]{32})$/

/** 4902 'Unsupported chain' for anything but an EVM (`eip155:<id>`) or Solana network. */
export function assertSupportedChain(chainId: string): void {
  if (!supported.test(chainId)) throw new RpcError(ErrorCode.unknownChain, 'Unsupported chain')
}

/** `switchNetwork`: makes `chainId` the network in use, remembered across reloads. */
export async function switchNetwork({ chainId }: Params, context: Context): Promise<Result> {
  assertSupportedChain(chainId)
  await setChainId(context, chainId)
  return { chainId }
}
