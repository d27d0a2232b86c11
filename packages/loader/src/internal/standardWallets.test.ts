import type { RpcError } from '@porthole/protocol/Errors'
import { StandardWallet } from '@porthole/protocol/Host'
import { maxHostWallets, maxIconLength, standardFeatures } from '@porthole/protocol/HostGuards'
import { describe, expect, test, vi } from 'vitest'
import { address, createStandardWallet, otherAddress } from '../../test/standardWallet.js'
import { createStandardWallets, maxTrackedWallets } from './standardWallets.js'

const settle = () => new Promise((resolve) => setTimeout(resolve, 0))

function setup(own: unknown = {}) {
  const onChange = vi.fn()
  const wallets = createStandardWallets(own, onChange)
  return { wallets, onChange }
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail('resolved'),
    (error: RpcError) => error.toJSON(),
  )

const base64 = (bytes: number[]) => Buffer.from(bytes).toString('base64')

describe('inv-18 createStandardWallets: what the page registers', () => {
  test('offers a Solana wallet in the shape the widget accepts, with only the relayed features', async () => {
    const { wallets, onChange } = setup()
    const { wallet } = createStandardWallet()
    wallets.add(wallet)
    wallets.add(wallet)
    await settle()
    const expected = {
      id: 'standard:0',
      name: 'Test Solana',
      icon: 'data:image/svg+xml;base64,PHN2Zy8+',
      chains: ['solana:mainnet', 'solana:localnet'],
      features: [...standardFeatures],
      accounts: [],
    }
    expect(wallets.list()).toEqual([expected])
    expect(StandardWallet.parse(wallets.list()[0])).toEqual(expected)
    expect(onChange.mock.calls).toEqual([[[expected]]])
  })

  test('never offers Porthole its own wallet, nor a wallet without a Solana chain or the features to sign', () => {
    const own = createStandardWallet('Porthole').wallet
    const { wallets } = setup(own)
    wallets.add(own)
    wallets.add(createStandardWallet('Sui only', { chains: ['sui:mainnet'] }).wallet)
    const noConnect = createStandardWallet('No connect')
    wallets.add({
      ...noConnect.wallet,
      features: { 'solana:signMessage': noConnect.features['solana:signMessage'] },
    })
    const noSigning = createStandardWallet('No signing')
    wallets.add({
      ...noSigning.wallet,
      features: { 'standard:connect': noSigning.features['standard:connect'] },
    })
    // A feature without its method is no feature.
    wallets.add(
      createStandardWallet('Hollow', {
        features: { 'standard:connect': { version: '1.0.0' }, 'solana:signMessage': {} },
      }).wallet,
    )
    for (const value of [null, undefined, 'wallet', 42, () => 1]) wallets.add(value)
    expect(wallets.list()).toEqual([])
  })

  test('survives getters that throw, and keeps what it can read', () => {
    const { wallets } = setup()
    const trap = () => {
      throw new Error('trap')
    }
    const { wallet } = createStandardWallet()
    wallets.add(Object.defineProperty({ ...wallet }, 'name', { get: trap, enumerable: true }))
    wallets.add(Object.defineProperty({ ...wallet, name: 'B' }, 'icon', { get: trap }))
    wallets.add(Object.defineProperty({ ...wallet, name: 'C' }, 'accounts', { get: trap }))
    wallets.add(Object.defineProperty({ ...wallet, name: 'D' }, 'features', { get: trap }))
    wallets.add(new Proxy({}, { get: trap, has: trap, ownKeys: trap, getPrototypeOf: trap }))
    // An array whose own methods lie, and one as long as it likes.
    const chains = Object.assign(['solana:localnet'], { slice: () => ({ filter: trap }) })
    const endless = new Proxy([], {
      get: (target, key) => (key === 'length' ? 2 ** 32 - 1 : Reflect.get(target, key)),
    })
    wallets.add({ ...wallet, name: 'E', chains, accounts: endless })
    expect(wallets.list().map(({ name, icon, accounts }) => ({ name, icon, accounts }))).toEqual([
      { name: 'B', icon: '', accounts: [] },
      { name: 'C', icon: 'data:image/svg+xml;base64,PHN2Zy8+', accounts: [] },
      { name: 'E', icon: 'data:image/svg+xml;base64,PHN2Zy8+', accounts: [] },
    ])
  })

  test('bounds names, icons, chains and accounts, and drops the malformed ones', () => {
    const { wallets } = setup()
    const hostile = {
      icon: `data:image/png;base64,${'A'.repeat(maxIconLength)}`,
      chains: [
        ...Array.from({ length: 20 }, (_, index) => `solana:net${index}`),
        'solana:',
        'solana:UPPER',
        `solana:${'a'.repeat(33)}`,
        'eip155:1',
        7,
      ],
    }
    const { wallet, setAccounts } = createStandardWallet('Big', hostile)
    setAccounts([
      address,
      address,
      'not base58 0OIl',
      ...Array.from({ length: 40 }, () => otherAddress),
    ])
    wallets.add(wallet)
    wallets.add(createStandardWallet('x'.repeat(129)).wallet)
    wallets.add(createStandardWallet('', {}).wallet)
    wallets.add(createStandardWallet('Remote icon', { icon: 'https://evil.example/x.png' }).wallet)
    const listed = wallets.list()
    expect(listed.map(({ name }) => name)).toEqual(['Big', 'Remote icon'])
    const [big, remote] = listed as [StandardWallet, StandardWallet]
    expect(big.icon).toBe('')
    expect(remote.icon).toBe('')
    expect(big.chains).toEqual(Array.from({ length: 8 }, (_, index) => `solana:net${index}`))
    expect(big.accounts).toEqual([address, otherAddress])
    for (const wallet of listed) StandardWallet.parse(wallet)
  })

  test(`offers at most ${maxHostWallets} wallets and follows at most ${maxTrackedWallets}`, () => {
    const { wallets } = setup()
    const many = Array.from({ length: 100 }, (_, index) => createStandardWallet(`W${index}`))
    for (const { wallet } of many) wallets.add(wallet)
    expect(wallets.list()).toHaveLength(maxHostWallets)
    const followed = many.filter(({ features }) => features['standard:events'].on.mock.calls.length)
    expect(followed).toHaveLength(maxTrackedWallets)
  })

  test("sends the list again when a wallet's accounts change, once per change", async () => {
    const { wallets, onChange } = setup()
    const { wallet, setAccounts } = createStandardWallet()
    wallets.add(wallet)
    await settle()
    setAccounts([address])
    setAccounts([address])
    await settle()
    setAccounts([address])
    await settle()
    setAccounts([otherAddress])
    await settle()
    expect(onChange.mock.calls.map(([list]) => list[0].accounts)).toEqual([
      [],
      [address],
      [otherAddress],
    ])
  })

  test('remove() and stop() stop following a wallet', async () => {
    const { wallets } = setup()
    const first = createStandardWallet('A')
    const second = createStandardWallet('B')
    wallets.add(first.wallet)
    wallets.add(second.wallet)
    wallets.remove(first.wallet)
    expect(wallets.list().map(({ id }) => id)).toEqual(['standard:1'])
    expect(first.listeners.size).toBe(0)
    wallets.stop()
    expect(second.listeners.size).toBe(0)
    expect(wallets.list()).toEqual([])
  })
})

describe('createStandardWallets: requests', () => {
  const ready = () => {
    const { wallets, onChange } = setup()
    const fake = createStandardWallet()
    wallets.add(fake.wallet)
    return { wallets, onChange, fake }
  }

  test('connects, and answers with the addresses the wallet authorised', async () => {
    const { wallets, fake } = ready()
    await expect(
      wallets.request({ id: 'standard:0', feature: 'standard:connect', input: {} }),
    ).resolves.toEqual({ accounts: [address] })
    expect(fake.features['standard:connect'].connect).toHaveBeenCalledWith({ silent: false })
    await wallets.request({
      id: 'standard:0',
      feature: 'standard:connect',
      input: { silent: true },
    })
    expect(fake.features['standard:connect'].connect).toHaveBeenLastCalledWith({ silent: true })
    await expect(
      wallets.request({ id: 'standard:0', feature: 'standard:disconnect', input: {} }),
    ).resolves.toBeNull()
  })

  test('signs a message with the account object of the address, bytes in base64', async () => {
    const { wallets, fake } = ready()
    fake.setAccounts([address])
    const result = await wallets.request({
      id: 'standard:0',
      feature: 'solana:signMessage',
      input: { account: address, message: base64([104, 105]) },
    })
    expect(result).toEqual({
      signedMessage: base64([104, 105]),
      signature: base64(Array(64).fill(7)),
    })
    const [input] = fake.features['solana:signMessage'].signMessage.mock.calls[0] as [
      { account: unknown; message: Uint8Array },
    ]
    expect(input.account).toBe(fake.wallet.accounts[0])
    expect([...input.message]).toEqual([104, 105])
  })

  test('signs a transaction, and signs and sends one with its chain and options', async () => {
    const { wallets, fake } = ready()
    fake.setAccounts([address])
    await expect(
      wallets.request({
        id: 'standard:0',
        feature: 'solana:signTransaction',
        input: { account: address, chain: 'solana:localnet', transaction: base64([1, 2]) },
      }),
    ).resolves.toEqual({ signedTransaction: base64([1, 2, 1]) })
    const options = { preflightCommitment: 'confirmed', skipPreflight: false, maxRetries: 3 }
    await expect(
      wallets.request({
        id: 'standard:0',
        feature: 'solana:signAndSendTransaction',
        input: { account: address, chain: 'solana:localnet', transaction: base64([3]), options },
      }),
    ).resolves.toEqual({ signature: base64(Array(64).fill(9)) })
    const [input] = fake.features['solana:signAndSendTransaction'].signAndSendTransaction.mock
      .calls[0] as [Record<string, unknown>]
    expect(input).toMatchObject({ chain: 'solana:localnet', options })
  })

  test('an address the wallet has not authorised is refused with 4100, the wallet never asked', async () => {
    const { wallets, fake } = ready()
    fake.setAccounts([address])
    const error = await failure(
      wallets.request({
        id: 'standard:0',
        feature: 'solana:signMessage',
        input: { account: otherAddress, message: base64([1]) },
      }),
    )
    expect(error.code).toBe(4100)
    expect(fake.features['solana:signMessage'].signMessage).not.toHaveBeenCalled()
  })

  test.each([
    ['an unknown key', 'standard:connect', { silent: true, extra: 1 }],
    ['a silent that is not a boolean', 'standard:connect', { silent: 'yes' }],
    ['a message that is not base64', 'solana:signMessage', { account: address, message: 'hi!' }],
    ['no transaction', 'solana:signTransaction', { account: address }],
    [
      'a bad chain',
      'solana:signTransaction',
      { account: address, transaction: 'AA==', chain: 'x' },
    ],
    [
      'no chain to send on',
      'solana:signAndSendTransaction',
      { account: address, transaction: 'AA==' },
    ],
    [
      'an unknown option',
      'solana:signAndSendTransaction',
      { account: address, chain: 'solana:localnet', transaction: 'AA==', options: { x: 1 } },
    ],
    [
      'a negative retry count',
      'solana:signAndSendTransaction',
      {
        account: address,
        chain: 'solana:localnet',
        transaction: 'AA==',
        options: { maxRetries: -1 },
      },
    ],
  ] as const)('inv-18 refuses %s with -32602', async (_, feature, input) => {
    const { wallets, fake } = ready()
    fake.setAccounts([address])
    const error = await failure(
      wallets.request({ id: 'standard:0', feature, input: input as Record<string, unknown> }),
    )
    expect(error.code).toBe(-32602)
  })

  test('a wallet that is gone, or a feature it does not have, is refused', async () => {
    const { wallets, fake } = ready()
    expect(
      (await failure(wallets.request({ id: 'standard:9', feature: 'standard:connect', input: {} })))
        .code,
    ).toBe(4900)
    wallets.remove(fake.wallet)
    expect(
      (await failure(wallets.request({ id: 'standard:0', feature: 'standard:connect', input: {} })))
        .code,
    ).toBe(4900)
    const bare = createStandardWallet('Bare')
    const { 'standard:connect': connect, 'solana:signMessage': signMessage } = bare.features
    wallets.add({
      ...bare.wallet,
      features: { 'standard:connect': connect, 'solana:signMessage': signMessage },
    })
    const error = await failure(
      wallets.request({ id: 'standard:1', feature: 'standard:disconnect', input: {} }),
    )
    expect(error.code).toBe(4200)
  })

  test.each([
    [
      'a refusal in words, without a code',
      new Error('User rejected the request'),
      { code: 4001, message: 'User rejected the request.' },
    ],
    [
      '"Transaction cancelled"',
      new Error('Transaction cancelled'),
      { code: 4001, message: 'User rejected the request.' },
    ],
    [
      'its own code',
      Object.assign(new Error('Nope'), { code: 4100, stack: 'secret' }),
      { code: 4100, message: 'Nope' },
    ],
    ['no code', new Error('Broken'), { code: -32603, message: 'Broken' }],
    ['a string', 'weird', { code: -32603, message: '' }],
    [
      'throwing getters',
      Object.defineProperty({}, 'code', {
        get() {
          throw new Error('trap')
        },
      }),
      { code: -32603, message: '' },
    ],
  ])('maps a wallet error with %s', async (_, thrown, expected) => {
    const { wallets, fake } = ready()
    fake.features['standard:connect'].connect.mockRejectedValueOnce(thrown)
    expect(
      await failure(wallets.request({ id: 'standard:0', feature: 'standard:connect', input: {} })),
    ).toEqual(expected)
  })

  test.each([
    [
      'a signature that is not 64 bytes',
      [{ signedMessage: new Uint8Array(1), signature: new Uint8Array(63) }],
    ],
    ['no output', []],
    ['a string for bytes', [{ signedMessage: 'aGk=', signature: 'x' }]],
    ['a huge message', [{ signedMessage: new Uint8Array(70_000), signature: new Uint8Array(64) }]],
  ])('inv-18 a wallet answering %s gets -32603, nothing of it relayed', async (_, output) => {
    const { wallets, fake } = ready()
    fake.setAccounts([address])
    fake.features['solana:signMessage'].signMessage.mockResolvedValueOnce(output as never)
    const error = await failure(
      wallets.request({
        id: 'standard:0',
        feature: 'solana:signMessage',
        input: { account: address, message: 'AA==' },
      }),
    )
    expect(error).toEqual({ code: -32603, message: 'The wallet answered with an invalid result.' })
  })

  test('sends the list again after a request, as connecting changes the accounts', async () => {
    const { wallets, onChange, fake } = ready()
    fake.listeners.clear()
    await settle()
    await wallets.request({ id: 'standard:0', feature: 'standard:connect', input: {} })
    await settle()
    expect(onChange.mock.calls.at(-1)?.[0][0].accounts).toEqual([address])
  })
})
