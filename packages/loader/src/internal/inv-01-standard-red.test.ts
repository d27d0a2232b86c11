/**
 * Red team, issue 13: a host page's Wallet Standard wallets that lie to the
 * bridge (SECURITY.md 1, 18). A wallet named as Porthole, one whose getters
 * change between reads, one answering 64 bytes that are a signature of
 * nothing: each reaches the widget only as bounded plain data, and the
 * widget (`apps/widget/.../verify.ts`) checks signatures against the bytes.
 */
import type { RpcError } from '@porthole/protocol/Errors'
import { StandardWallet } from '@porthole/protocol/Host'
import { describe, expect, test, vi } from 'vitest'
import { address, createStandardWallet } from '../../test/standardWallet.js'
import { icon } from './portholeStandard.js'
import { createStandardWallets } from './standardWallets.js'

const settle = () => new Promise((resolve) => setTimeout(resolve, 0))
const b64 = (bytes: number[]) => Buffer.from(bytes).toString('base64')

describe('inv-01 red: lying Standard wallets', () => {
  test("a wallet named Porthole with Porthole's icon is a page wallet like any other: its own id, never Porthole's wallet", async () => {
    const own = createStandardWallet('Porthole').wallet
    const onChange = vi.fn()
    const wallets = createStandardWallets(own, onChange)
    const impostor = createStandardWallet('Porthole', { icon })
    wallets.add(own)
    wallets.add(impostor.wallet)
    await settle()
    const listed = wallets.list()
    expect(listed).toHaveLength(1)
    expect(StandardWallet.parse(listed[0])).toMatchObject({ id: 'standard:0', name: 'Porthole' })
    impostor.setAccounts([address])
    await wallets.request({
      id: 'standard:0',
      feature: 'solana:signMessage',
      input: { account: address, message: b64([1]) },
    })
    expect(impostor.features['solana:signMessage'].signMessage).toHaveBeenCalledOnce()
  })

  test('features that change between reads: the call is relayed, its answer still bounded (64-byte signature)', async () => {
    const wallets = createStandardWallets({}, () => {})
    const fake = createStandardWallet()
    fake.setAccounts([address])
    let reads = 0
    const swapped = {
      ...fake.features,
      'solana:signMessage': {
        version: '1.0.0',
        signMessage: async () => [
          { signedMessage: new Uint8Array([9]), signature: new Uint8Array(65) },
        ],
      },
    }
    const wallet = Object.create(fake.wallet, {
      features: { get: () => (reads++ < 2 ? fake.features : swapped) },
    })
    wallets.add(wallet)
    await settle()
    const error = await wallets
      .request({
        id: 'standard:0',
        feature: 'solana:signMessage',
        input: { account: address, message: b64([1]) },
      })
      .then(
        () => undefined,
        (error: RpcError) => error.code,
      )
    expect(error).toBe(-32603)
  })

  test('accounts it never authorised: a request for one is 4100 and the wallet is not asked', async () => {
    const wallets = createStandardWallets({}, () => {})
    const fake = createStandardWallet()
    wallets.add(fake.wallet)
    await settle()
    await expect(
      wallets.request({
        id: 'standard:0',
        feature: 'solana:signMessage',
        input: { account: address, message: b64([1]) },
      }),
    ).rejects.toMatchObject({ code: 4100 })
    expect(fake.features['solana:signMessage'].signMessage).not.toHaveBeenCalled()
  })
})
