import { UserRejectedError } from '@porthole/protocol/Errors'
import { initialState, type State } from '@porthole/protocol/Host'
import { standardFeatures } from '@porthole/protocol/HostGuards'
import { base58, base64 } from '@scure/base'
import type { Wallet, WalletAccount } from '@wallet-standard/base'
import { describe, expect, test, vi } from 'vitest'
import { address, otherAddress } from '../../test/standardWallet.js'
import { icon as eip6963Icon } from './eip6963.js'
import { createPortholeStandard, icon } from './portholeStandard.js'

const localnet = 'solana:B9JvWMvyqAfp6P4RGadbx9c67A6jMCPD'
const connected: Partial<State> = {
  status: 'connected',
  caipAddress: `${localnet}:${address}`,
  address,
  chainId: localnet,
  connector: 'Test Solana',
}

/** The `Wallet` API as the Solana bridge uses it, with a state the test sets. */
function createPorthole(answers: Record<string, (params: unknown) => unknown> = {}) {
  let state: State = initialState
  const subscribers = new Set<(state: State) => void>()
  const set = (patch: Partial<State>) => {
    state = { ...state, ...patch }
    for (const subscriber of [...subscribers]) subscriber(state)
  }
  const porthole = {
    open: vi.fn(async () => set({ open: true })),
    disconnect: vi.fn(async () => set({ caipAddress: null, address: null, chainId: null })),
    getState: () => state,
    subscribe(listener: (state: State) => void) {
      subscribers.add(listener)
      return () => {
        subscribers.delete(listener)
      }
    },
    provider: {
      request: vi.fn(async ({ method, params }: { method: string; params?: object }) => {
        const answer = answers[method]
        if (!answer) throw new Error(`unexpected ${method}`)
        return answer(params)
      }),
    },
  }
  return { porthole, set, subscribers }
}

type Features = {
  'standard:connect': {
    connect(input?: { silent?: boolean }): Promise<{ accounts: WalletAccount[] }>
  }
  'standard:disconnect': { disconnect(): Promise<void> }
  'standard:events': { on(event: 'change', listener: (properties: unknown) => void): () => void }
  'solana:signMessage': {
    signMessage(
      ...inputs: unknown[]
    ): Promise<Array<{ signedMessage: Uint8Array; signature: Uint8Array }>>
  }
  'solana:signTransaction': {
    supportedTransactionVersions: readonly unknown[]
    signTransaction(...inputs: unknown[]): Promise<Array<{ signedTransaction: Uint8Array }>>
  }
  'solana:signAndSendTransaction': {
    supportedTransactionVersions: readonly unknown[]
    signAndSendTransaction(...inputs: unknown[]): Promise<Array<{ signature: Uint8Array }>>
  }
}
const featuresOf = (wallet: Wallet) => wallet.features as unknown as Features
const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail('resolved'),
    (error: { code: number; message: string }) => ({ code: error.code, message: error.message }),
  )

describe('createPortholeStandard', () => {
  test("is a Standard wallet with Porthole's name and EIP-6963 icon, its Solana chains and features", () => {
    const { wallet } = createPortholeStandard(createPorthole().porthole)
    expect(wallet).toMatchObject({ version: '1.0.0', name: 'Porthole', accounts: [] })
    expect(wallet.chains).toEqual([
      'solana:mainnet',
      'solana:testnet',
      'solana:devnet',
      'solana:localnet',
    ])
    expect(Object.keys(wallet.features)).toEqual(standardFeatures)
    expect(featuresOf(wallet)['solana:signTransaction'].supportedTransactionVersions).toEqual([
      'legacy',
      0,
    ])
    // The same image, base64-encoded as the Standard's WalletIcon is.
    const svg = Buffer.from(icon.replace('data:image/svg+xml;base64,', ''), 'base64').toString()
    expect(`data:image/svg+xml,${svg.replaceAll('#', '%23')}`).toBe(eip6963Icon)
    expect(Object.isFrozen(wallet) && Object.isFrozen(wallet.features)).toBe(true)
  })

  test('has the connected Solana account, the same object while it lasts, with its Standard chain', () => {
    const { porthole, set } = createPorthole()
    const { wallet } = createPortholeStandard(porthole)
    set({ caipAddress: 'eip155:1:0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', chainId: 'eip155:1' })
    expect(wallet.accounts).toEqual([])
    set(connected)
    const [account] = wallet.accounts
    expect(account).toMatchObject({ address, chains: ['solana:localnet'] })
    expect([...(account?.publicKey ?? [])]).toEqual([...base58.decode(address)])
    expect(wallet.accounts[0]).toBe(account)
  })

  test("tells 'change' listeners when the Solana account changes", () => {
    const { porthole, set } = createPorthole()
    const { wallet, stop } = createPortholeStandard(porthole)
    const listener = vi.fn()
    const off = featuresOf(wallet)['standard:events'].on('change', listener)
    set(connected)
    set({ open: true })
    set({ caipAddress: null })
    off()
    set(connected)
    expect(
      listener.mock.calls.map(([{ accounts }]) => accounts.map((a: WalletAccount) => a.address)),
    ).toEqual([[address], []])
    stop()
  })

  test("connect is the widget's standard:connect (it opens the modal when it must) and resolves with the account", async () => {
    let answer: (value: unknown) => void = () => {}
    const { porthole, set } = createPorthole({
      'standard:connect': () => new Promise((resolve) => (answer = resolve)),
    })
    const { wallet } = createPortholeStandard(porthole)
    const connecting = featuresOf(wallet)['standard:connect'].connect()
    await vi.waitFor(() =>
      expect(porthole.provider.request).toHaveBeenCalledWith({
        method: 'standard:connect',
        params: {},
      }),
    )
    // The answer may come before the state that carries the account.
    answer({ accounts: [address] })
    set(connected)
    await expect(connecting).resolves.toEqual({ accounts: wallet.accounts })
    // Connected already: the widget is not asked again.
    await featuresOf(wallet)['standard:connect'].connect()
    expect(porthole.provider.request).toHaveBeenCalledOnce()
  })

  test("connect rejects with the widget's 4001 (the modal closed); silent never asks", async () => {
    const { porthole, subscribers } = createPorthole({
      'standard:connect': () => {
        throw new UserRejectedError()
      },
    })
    const { wallet } = createPortholeStandard(porthole)
    await expect(featuresOf(wallet)['standard:connect'].connect({ silent: true })).resolves.toEqual(
      {
        accounts: [],
      },
    )
    expect(porthole.provider.request).not.toHaveBeenCalled()
    expect(await rejection(featuresOf(wallet)['standard:connect'].connect())).toEqual({
      code: 4001,
      message: 'User rejected the request.',
    })
    expect(subscribers.size).toBe(1)
  })

  test('signMessage asks the widget for solana_signMessage, message in base58, and returns the signature bytes', async () => {
    const signature = new Uint8Array(64).fill(3)
    const { porthole, set } = createPorthole({
      solana_signMessage: () => ({ signature: base58.encode(signature) }),
    })
    const { wallet } = createPortholeStandard(porthole)
    set(connected)
    const message = new TextEncoder().encode('hello')
    const [output] = await featuresOf(wallet)['solana:signMessage'].signMessage({
      account: wallet.accounts[0],
      message,
    })
    expect(porthole.provider.request).toHaveBeenCalledWith({
      method: 'solana_signMessage',
      params: { message: base58.encode(message), pubkey: address },
    })
    expect(output).toEqual({ signedMessage: message, signature })
  })

  test('signTransaction and signAndSendTransaction ask the widget with base64, and map the send options', async () => {
    const { porthole, set } = createPorthole({
      solana_signTransaction: () => ({ transaction: base64.encode(Uint8Array.of(1, 2, 3)) }),
      solana_signAndSendTransaction: () => ({
        signature: base58.encode(new Uint8Array(64).fill(5)),
      }),
    })
    const { wallet } = createPortholeStandard(porthole)
    set(connected)
    const account = wallet.accounts[0]
    const transaction = Uint8Array.of(1, 2)
    const [signed] = await featuresOf(wallet)['solana:signTransaction'].signTransaction({
      account,
      transaction,
    })
    expect(signed).toEqual({ signedTransaction: Uint8Array.of(1, 2, 3) })
    const [sent] = await featuresOf(wallet)['solana:signAndSendTransaction'].signAndSendTransaction(
      {
        account,
        transaction,
        chain: 'solana:localnet',
        options: { preflightCommitment: 'confirmed', commitment: 'finalized', maxRetries: 2 },
      },
    )
    expect(sent).toEqual({ signature: new Uint8Array(64).fill(5) })
    expect(porthole.provider.request).toHaveBeenLastCalledWith({
      method: 'solana_signAndSendTransaction',
      params: {
        transaction: base64.encode(transaction),
        sendOptions: { preflightCommitment: 'confirmed', maxRetries: 2 },
      },
    })
  })

  test('refuses another account (4100) and sending on another network (4901), the widget never asked', async () => {
    const { porthole, set } = createPorthole()
    const { wallet } = createPortholeStandard(porthole)
    const features = featuresOf(wallet)
    const stranger = {
      address: otherAddress,
      publicKey: new Uint8Array(32),
      chains: [],
      features: [],
    }
    expect(
      await rejection(
        features['solana:signMessage'].signMessage({
          account: stranger,
          message: new Uint8Array(1),
        }),
      ),
    ).toMatchObject({ code: 4100 })
    set(connected)
    expect(
      await rejection(
        features['solana:signTransaction'].signTransaction({
          account: stranger,
          transaction: new Uint8Array(1),
        }),
      ),
    ).toMatchObject({ code: 4100 })
    expect(
      await rejection(
        features['solana:signAndSendTransaction'].signAndSendTransaction({
          account: wallet.accounts[0],
          transaction: new Uint8Array(1),
          chain: 'solana:mainnet',
        }),
      ),
    ).toMatchObject({ code: 4901 })
    expect(porthole.provider.request).not.toHaveBeenCalled()
  })

  test('disconnect ends a Solana connection only', async () => {
    const { porthole, set } = createPorthole()
    const { wallet } = createPortholeStandard(porthole)
    await featuresOf(wallet)['standard:disconnect'].disconnect()
    expect(porthole.disconnect).not.toHaveBeenCalled()
    set(connected)
    await featuresOf(wallet)['standard:disconnect'].disconnect()
    expect(porthole.disconnect).toHaveBeenCalledOnce()
    expect(wallet.accounts).toEqual([])
  })
})
