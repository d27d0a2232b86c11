/**
 * EVM's needs-approval methods, checked and normalised before they are shown
 * (SECURITY.md 20): a personal message, EIP-712 typed data, a transaction
 * (its nonce, gas and fees filled by viem over the API's RPC proxy) or an
 * EIP-5792 batch (calls.ts), each then signed with the wallet's EVM account
 * from the very object shown; transactions are sent through the proxy.
 */
import { AbortedError, InvalidParamsError } from '@porthole/protocol/Errors'
import { z } from '@porthole/protocol/zod'
import { getAddress, type Hex, hexToBytes, isHex, numberToHex } from 'viem'
import { sendRawTransaction } from 'viem/actions'
import { toFrozenJson } from '../../approval/request.js'
import { ChainDisconnectedError, NoTransactionHashError } from '../../lib/errors.js'
import {
  assertAccount,
  maxMessageLength,
  type Prepared,
  type PrepareParameters,
  parseParams,
} from '../prepared.js'
import type { Context } from '../session.js'
import { withEvmAccount } from '../signer.js'
import { assertSignInFor } from '../signIn.js'
import { readTokens } from '../tokens.js'
import {
  assertBundleIdFree,
  createBundleId,
  parseSendCalls,
  rememberBundle,
  sendInOrder,
} from './calls.js'
import { createEvmClient, type EvmClient, type Rpc, viaViem } from './client.js'
import {
  type Filled,
  fillFees,
  fillTransaction,
  pendingNonce,
  toDraft,
  toSerializable,
} from './transaction.js'
import { SignTypedDataParams, toNormalisedTypedData } from './typedData.js'

/** The EVM methods this frame signs. */
export const evmMethods = [
  'personal_sign',
  'eth_signTypedData_v4',
  'eth_sendTransaction',
  'wallet_sendCalls',
] as const
export type EvmMethod = (typeof evmMethods)[number]

const evmChainPattern = /^eip155:(\d{1,15})$/

/** The numeric id of an EVM network, or a 4901 error for any other network. */
export function evmChainIdOf(chainId: string, method: string): number {
  const match = evmChainPattern.exec(chainId)
  if (!match) throw new ChainDisconnectedError(method, chainId)
  return Number(match[1])
}

const PersonalSignParams = z.tuple([
  z.string().check(z.maxLength(maxMessageLength)),
  z.string().check(z.regex(/^0x[0-9a-fA-F]{40}$/)),
])

function sameEvmAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase()
}

/**
 * Checks an EVM request against the wallet (its account, an EVM network)
 * and normalises it; for transactions, the nonce, gas and fees are filled
 * through the proxy. Nothing is signed until `sign`.
 */
export async function prepareEvm({
  context,
  request,
  user,
  current,
  origin,
}: PrepareParameters<EvmMethod>): Promise<Prepared> {
  const { method, params } = request
  const chainId = request.chainId ?? current
  const chain = evmChainIdOf(chainId, method)
  const account = getAddress(user.addresses.eip155)
  const rpc: Rpc = (name, args) => context.api.rpc(chainId, name, args)
  const client = createEvmClient(rpc)
  switch (method) {
    case 'personal_sign': {
      const [message, address] = parseParams(PersonalSignParams, params, method)
      assertAccount(sameEvmAddress(address, account))
      // Hex is signed as its bytes: half a byte would be padded, so signed other than shown.
      if (isHex(message) && message.length % 2 !== 0)
        throw new InvalidParamsError('The message is hex of an odd length.')
      assertSignInFor(
        isHex(message) ? new TextDecoder().decode(hexToBytes(message)) : message,
        origin,
      )
      const shown = toFrozenJson([message, account] as const)
      return {
        chainId,
        account,
        params: shown,
        sign: () =>
          withEvmAccount(context, (signer) =>
            signer.signMessage({ message: isHex(shown[0]) ? { raw: shown[0] } : shown[0] }),
          ),
      }
    }
    case 'eth_signTypedData_v4': {
      const [address, raw] = parseParams(SignTypedDataParams, params, method)
      assertAccount(sameEvmAddress(address, account))
      const typed = toNormalisedTypedData(raw)
      if (typed.domain.chainId !== undefined && BigInt(typed.domain.chainId) !== BigInt(chain))
        throw new InvalidParamsError(
          `The typed data is for chain ${String(typed.domain.chainId)}, not ${chainId}.`,
        )
      const shown = toFrozenJson([account, typed] as const)
      return {
        chainId,
        account,
        params: shown,
        sign: () => withEvmAccount(context, (signer) => signer.signTypedData(shown[1] as never)),
      }
    }
    case 'eth_sendTransaction': {
      const draft = toDraft(params, { account, chain })
      const [fees, tokens] = await Promise.all([
        fillFees(client, draft.fees),
        readTokens(rpc, tokenCalls([draft])),
      ])
      const shown = toFrozenJson([
        await fillTransaction(client, draft, { account, chain, fees }),
      ] as const)
      return {
        chainId,
        account,
        params: shown,
        tokens,
        sign: (signal) => sendFilled(context, client, shown[0], signal),
      }
    }
    case 'wallet_sendCalls': {
      const batch = parseSendCalls(params, { account, chain, chainId })
      assertBundleIdFree(context.memory, batch.id)
      // One nonce and one fee for the batch: the calls follow each other (n, n+1, …).
      const [nonce, fees, tokens] = await Promise.all([
        pendingNonce(client, account),
        fillFees(client, undefined),
        readTokens(rpc, tokenCalls(batch.calls)),
      ])
      const calls = await Promise.all(
        batch.calls.map((call, index) =>
          fillTransaction(
            client,
            {
              to: call.to,
              ...(call.value === undefined ? {} : { value: BigInt(call.value) }),
              ...(call.data === undefined ? {} : { data: call.data.toLowerCase() as Hex }),
            },
            { account, chain, fees, nonce: nonce + BigInt(index) },
          ),
        ),
      )
      const shown = toFrozenJson([{ chainId: numberToHex(chain), from: account, calls }] as const)
      return {
        chainId,
        account,
        params: shown,
        tokens,
        sign: async (signal) => {
          assertBundleIdFree(context.memory, batch.id)
          const { hashes, complete } = await sendInOrder(shown[0].calls, (call) =>
            sendFilled(context, client, call, signal),
          )
          const id = batch.id ?? createBundleId()
          rememberBundle(context.memory, id, { chainId, account, hashes, complete })
          return { id }
        },
      }
    }
  }
}

const erc20Selectors = new Set(['0xa9059cbb', '0x095ea7b3', '0x23b872dd'])

/** The contracts `calls` call with an ERC-20 transfer, approve or transferFrom. */
function tokenCalls(calls: readonly { to?: string | undefined; data?: string | undefined }[]) {
  return calls.flatMap(({ to, data }) =>
    to !== undefined && data !== undefined && erc20Selectors.has(data.slice(0, 10).toLowerCase())
      ? [to]
      : [],
  )
}

/**
 * Signs `filled` exactly as shown and sends it; resolves with its hash. A
 * request given up on (`signal`) before the send is not sent (SECURITY.md 17).
 */
async function sendFilled(
  context: Context,
  client: EvmClient,
  filled: Filled,
  signal: AbortSignal,
): Promise<Hex> {
  const serializedTransaction = await withEvmAccount(context, (signer) =>
    signer.signTransaction(toSerializable(filled)),
  )
  if (signal.aborted) throw new AbortedError()
  const hash: unknown = await viaViem(sendRawTransaction(client, { serializedTransaction }))
  if (!isHex(hash) || hash.length !== 66) throw new NoTransactionHashError()
  return hash
}
