/**
 * ENS on a real anvil: what `npm start` deploys (`deployDevEns`), read with
 * viem's own ENS actions through `@porthole/chains`' local chain, as the
 * widget reads it.
 */
import { Evm } from '@porthole/chains'
import {
  type Abi,
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  getContract,
  http,
  namehash,
  type PublicClient,
  stringToHex,
  zeroHash,
} from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createAnvilClients, devKey, type LocalAnvil, startAnvil } from './anvil.ts'
import { compileContract } from './contracts.ts'
import {
  deployDevEns,
  ENS_SOURCES,
  type EnsDeployment,
  ensPublicResolverAbi,
  ensRegistryAbi,
  ensReverseRegistrarAbi,
  ensUniversalResolverAbi,
} from './ens.ts'
import { devEns } from './stack.ts'

let anvil: LocalAnvil | undefined
let ens: EnsDeployment
let client: PublicClient

const account = (index: number) =>
  createAnvilClients({ rpcUrl: anvil?.url ?? '', privateKey: devKey(index) })

beforeAll(async () => {
  anvil = await startAnvil()
  ens = await deployDevEns(anvil.url)
  // The widget's chain definition, on this node.
  client = createPublicClient({
    chain: { ...Evm.localChain, rpcUrls: { default: { http: [anvil.url] } } },
    transport: http(anvil.url, { retryCount: 0 }),
  })
})

afterAll(async () => {
  await anvil?.stop()
})

/** The custom error a rejected call reverted with, decoded by viem. */
async function revertOf(call: Promise<unknown>) {
  const error = await call.then(
    () => {
      throw new Error('expected the call to revert')
    },
    (error: unknown) => error,
  )
  const reverted =
    error instanceof BaseError
      ? error.walk((cause) => cause instanceof ContractFunctionRevertedError)
      : null
  if (!(reverted instanceof ContractFunctionRevertedError)) throw error
  return reverted.data?.errorName
}

/** An ABI without solc's extras (internalType, empty names, false flags), sorted by item. */
function normalizeAbi(abi: Abi) {
  const json = JSON.stringify(abi, (key, value) =>
    key === 'internalType' ||
    (key === 'name' && value === '') ||
    ((key === 'anonymous' || key === 'indexed') && value === false)
      ? undefined
      : value,
  )
  type Item = { type: string; name?: string; inputs?: { type: string }[] }
  const order = (item: Item) =>
    `${item.type}:${item.name ?? ''}(${(item.inputs ?? []).map(({ type }) => type).join(',')})`
  return (JSON.parse(json) as Item[]).toSorted((a, b) => order(a).localeCompare(order(b)))
}

describe('the ENS contracts', () => {
  test.each([
    ['registry', 'EnsRegistry', ensRegistryAbi],
    ['publicResolver', 'EnsPublicResolver', ensPublicResolverAbi],
    ['reverseRegistrar', 'EnsReverseRegistrar', ensReverseRegistrarAbi],
    ['universalResolver', 'EnsUniversalResolver', ensUniversalResolverAbi],
  ] as const)('the typed ABI of the %s matches what solc emits', (key, name, typed) => {
    const { abi } = compileContract(ENS_SOURCES[key], name)
    expect(normalizeAbi(abi)).toEqual(normalizeAbi(typed))
  })
})

describe('deployDevEns', () => {
  test("deploys at devEns' addresses; the local chain's UniversalResolver is the one deployed", () => {
    expect({
      registry: ens.registry,
      reverseRegistrar: ens.reverseRegistrar,
      publicResolver: ens.publicResolver,
      universalResolver: ens.universalResolver,
    }).toEqual({
      registry: devEns.registry,
      reverseRegistrar: devEns.reverseRegistrar,
      publicResolver: devEns.publicResolver,
      universalResolver: devEns.universalResolver,
    })
    expect(Evm.localChain.contracts.ensUniversalResolver.address).toBe(devEns.universalResolver)
  })

  test('names dev account 1: getEnsName gives its name, getEnsAvatar its avatar', async () => {
    expect(account(1).account.address).toBe(devEns.owner)
    expect(await client.getEnsName({ address: devEns.owner })).toBe('porthole-dev.eth')
    expect(await client.getEnsAvatar({ name: 'porthole-dev.eth' })).toBe(devEns.avatar)
    expect(devEns.avatar).toMatch(/^data:image\/svg\+xml;base64,/)
  })

  test('resolves the name forward: its address, its resolver, and no text it lacks', async () => {
    expect(await client.getEnsAddress({ name: 'porthole-dev.eth' })).toBe(devEns.owner)
    expect(await client.getEnsResolver({ name: 'porthole-dev.eth' })).toBe(devEns.publicResolver)
    expect(await client.getEnsText({ name: 'porthole-dev.eth', key: 'url' })).toBeNull()
    expect(await client.getEnsAddress({ name: 'nobody.eth' })).toBeNull()
  })

  test('hands the name to its owner, who alone may change it', async () => {
    const registry = getContract({ address: ens.registry, abi: ensRegistryAbi, client })
    expect(await registry.read.owner([namehash('porthole-dev.eth')])).toBe(devEns.owner)
    expect(await registry.read.owner([namehash('addr.reverse')])).toBe(ens.reverseRegistrar)
    const deployer = account(devEns.deployerIndex).walletClient
    const resolver = getContract({
      address: ens.publicResolver,
      abi: ensPublicResolverAbi,
      client: deployer,
    })
    expect(
      await revertOf(resolver.write.setText([namehash('porthole-dev.eth'), 'avatar', 'x'])),
    ).toBe('Unauthorized')
    const stranger = getContract({
      address: ens.registry,
      abi: ensRegistryAbi,
      client: account(2).walletClient,
    })
    expect(await revertOf(stranger.write.setSubnodeOwner([zeroHash, zeroHash, devEns.owner]))).toBe(
      'Unauthorized',
    )
  })
})

describe('reverse resolution', () => {
  test('an address without a reverse record has no name (ResolverNotFound)', async () => {
    const address = account(3).account.address
    expect(await client.getEnsName({ address })).toBeNull()
    expect(await revertOf(client.getEnsName({ address, strict: true }))).toBe('ResolverNotFound')
  })

  test('a primary name that resolves elsewhere is no name (ReverseAddressMismatch)', async () => {
    const address = account(4).account.address
    await ens.setPrimaryName(address, 'porthole-dev.eth')
    expect(await client.getEnsName({ address })).toBeNull()
    expect(await revertOf(client.getEnsName({ address, strict: true }))).toBe(
      'ReverseAddressMismatch',
    )
  })

  test('an address sets its own primary name (ENSIP-3 setName); a name without avatar has none', async () => {
    const { account: five, publicClient, walletClient } = account(5)
    await ens.registerName({ label: 'five', owner: five.address, primary: false })
    expect(await client.getEnsName({ address: five.address })).toBeNull()
    const registrar = getContract({
      address: ens.reverseRegistrar,
      abi: ensReverseRegistrarAbi,
      client: walletClient,
    })
    await publicClient.waitForTransactionReceipt({
      hash: await registrar.write.setName(['five.eth']),
    })
    expect(await client.getEnsName({ address: five.address })).toBe('five.eth')
    expect(await client.getEnsAvatar({ name: 'five.eth' })).toBeNull()
  })

  test('only an address itself or a controller sets its primary name', async () => {
    const registrar = getContract({
      address: ens.reverseRegistrar,
      abi: ensReverseRegistrarAbi,
      client: account(6).walletClient,
    })
    expect(
      await revertOf(
        registrar.write.setNameForAddr([
          devEns.owner,
          devEns.owner,
          ens.publicResolver,
          'five.eth',
        ]),
      ),
    ).toBe('Unauthorized')
  })
})

describe('the UniversalResolver', () => {
  const universal = () =>
    getContract({ address: ens.universalResolver, abi: ensUniversalResolverAbi, client })

  test("a subname under a resolver that is not an extended one doesn't resolve (ENSIP-10)", async () => {
    expect(await client.getEnsAddress({ name: 'sub.porthole-dev.eth' })).toBeNull()
    const [resolver, node, offset] = await universal().read.findResolver([
      stringToHex('\x03sub\x0cporthole-dev\x03eth\x00'),
    ])
    expect({ resolver, node, offset }).toEqual({
      resolver: ens.publicResolver,
      node: namehash('sub.porthole-dev.eth'),
      offset: 4n,
    })
    expect(
      await revertOf(client.getEnsAddress({ name: 'sub.porthole-dev.eth', strict: true })),
    ).toBe('ResolverNotFound')
  })

  test.each<[string, Address | `0x${string}`, string]>([
    ['a label longer than the name', stringToHex('\x09porthole\x00'), 'DNSDecodingFailed'],
    ['bytes after the root', stringToHex('\x03eth\x00\x00'), 'DNSDecodingFailed'],
  ])('refuses %s (%s) with %s', async (_case, name, error) => {
    expect(await revertOf(universal().read.findResolver([name]))).toBe(error)
  })

  test('refuses an empty address with EmptyAddress', async () => {
    expect(await revertOf(universal().read.reverse(['0x', 60n]))).toBe('EmptyAddress')
  })
})
