/**
 * inv-20 / inv-18 (red team, issue 13): a Solana wallet the widget relays
 * (a host page's Standard wallet, a WalletConnect wallet) lies about what it
 * signed. What the host receives from `solana_signMessage` claims that
 * `pubkey` signed `message` (Porthole's Standard wallet answers the host's
 * bytes as its `signedMessage`): a signature of other bytes, by another key,
 * or of another length never passes.
 */
import { ed25519 } from '@noble/curves/ed25519'
import * as Solana from '@porthole/chains/Solana'
import { ErrorCode } from '@porthole/protocol/Errors'
import { base58 } from '@scure/base'
import { beforeAll, describe, expect, test } from 'vitest'
import {
  registerWalletConnectProvider,
  type WalletConnectProvider,
} from '../walletConnect/provider.js'
import { signatureOf } from './verify.js'
import { requestSolana } from './walletConnect.js'

const local = Solana.localnet.caipNetworkId
const key = ed25519.utils.randomPrivateKey()
const address = base58.encode(ed25519.getPublicKey(key))
const other = ed25519.utils.randomPrivateKey()
const message = new TextEncoder().encode('Pay 1 SOL to host.example')

describe('inv-20 a wallet signature of a message is checked before the host gets it', () => {
  test("positive control: the account's own signature of the bytes passes", () => {
    const signature = ed25519.sign(message, key)
    expect(signatureOf(address, message, signature)).toBe(signature)
  })

  test.each<[string, () => Uint8Array]>([
    ['of another message', () => ed25519.sign(new TextEncoder().encode('other'), key)],
    ['by another key', () => ed25519.sign(message, other)],
    ['63 bytes', () => ed25519.sign(message, key).slice(0, 63)],
    ['65 bytes', () => new Uint8Array([...ed25519.sign(message, key), 0])],
    ['64 zero bytes', () => new Uint8Array(64)],
  ])('a signature %s is -32603', (_, signature) => {
    expect(() => signatureOf(address, message, signature())).toThrow(
      expect.objectContaining({ code: ErrorCode.internal }),
    )
  })
})

describe('inv-18 a WalletConnect Solana wallet answers a signature of the wrong length', () => {
  let answer: unknown
  beforeAll(() => {
    registerWalletConnectProvider({
      session: { namespaces: { solana: { accounts: [`${local}:${address}`] } } },
      on() {},
      request: async () => answer,
    } as unknown as WalletConnectProvider)
  })

  // 64 base58 characters pass a 64-to-88 character pattern but are 47 bytes.
  const short = '2'.repeat(64)

  test('positive control: a 64-byte signature passes', async () => {
    answer = { signature: base58.encode(ed25519.sign(message, key)) }
    await expect(
      requestSolana(
        'solana_signMessage',
        { message: base58.encode(message), pubkey: address },
        local,
      ),
    ).resolves.toEqual(answer)
  })

  test.each([
    ['solana_signMessage', { message: base58.encode(message), pubkey: address }],
    ['solana_signAndSendTransaction', { transaction: 'AAAA' }],
    ['solana_signTransaction', { transaction: 'AAAA' }],
  ] as const)(
    '%s answered with 64 base58 characters of 47 bytes is -32603',
    async (method, params) => {
      expect(base58.decode(short).length).toBeLessThan(64)
      answer = { signature: short }
      await expect(requestSolana(method, params as never, local)).rejects.toMatchObject({
        code: ErrorCode.internal,
      })
    },
  )
})
