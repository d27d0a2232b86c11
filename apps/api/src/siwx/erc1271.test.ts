/**
 * Sign-in with a smart-contract wallet, checked by the API on a real chain:
 * @porthole/dev-stack's contracts/SmartAccount.sol (EIP-1271, owned by one key) deployed to a
 * private anvil, and the API built with `createApp` on PGlite, its RPC
 * upstream for eip155:31337 pointing at that anvil. Also EIP-6492: a
 * signature for an account not yet deployed, with the factory call that
 * would deploy it.
 */

import { createAnvilClients, type LocalAnvil, startAnvil } from '@porthole/dev-stack/anvil'
import { compileContract, SMART_ACCOUNT_SOURCE } from '@porthole/dev-stack/contracts'
import { SiwxNonce, SiwxSession, SiwxSessionCheck } from '@porthole/protocol/Siwx'
import {
  type Address,
  encodeFunctionData,
  getAddress,
  type Hex,
  parseAbi,
  serializeErc6492Signature,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createSiweMessage } from 'viem/siwe'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestDb, type TestDb } from '../../test/db.ts'
import { createApp } from '../app.ts'

/** Anvil's default dev accounts 0 (deployer and wallet owner) and 1. */
const OWNER_KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const STRANGER_KEY: Hex = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'
const owner = privateKeyToAccount(OWNER_KEY)
const stranger = privateKeyToAccount(STRANGER_KEY)

const smartAccountAbi = parseAbi([
  'constructor(address owner_)',
  'function owner() view returns (address)',
  'function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4)',
])
const factoryAbi = parseAbi([
  'function deploy(address owner, bytes32 salt) returns (address)',
  'function addressOf(address owner, bytes32 salt) view returns (address)',
])

/** The dev project's host. */
const host = 'http://127.0.0.1:5170'

let anvil: LocalAnvil | undefined
let testDb: TestDb | undefined
let app: ReturnType<typeof createApp>
let clients: ReturnType<typeof createAnvilClients>
let smartAccount: Address
let factory: Address

async function deploy(name: string, args: readonly unknown[]): Promise<Address> {
  const { abi, bytecode } = compileContract(SMART_ACCOUNT_SOURCE, name)
  const hash = await clients.walletClient.deployContract({ abi, bytecode, args })
  const receipt = await clients.publicClient.waitForTransactionReceipt({ hash })
  if (receipt.status !== 'success' || !receipt.contractAddress)
    throw new Error(`Deploying ${name} failed (transaction ${hash}).`)
  return getAddress(receipt.contractAddress)
}

beforeAll(async () => {
  anvil = await startAnvil()
  clients = createAnvilClients({ rpcUrl: anvil.url, privateKey: OWNER_KEY })
  testDb = await createTestDb({ rpcUpstreams: { 'eip155:31337': anvil.url } })
  app = createApp({ config: testDb.config, db: testDb.db })
  smartAccount = await deploy('SmartAccount', [owner.address])
  factory = await deploy('SmartAccountFactory', [])
})

afterAll(async () => {
  await testDb?.close()
  await anvil?.stop()
})

/** What the widget sends with every call that changes something (SECURITY.md 21). */
const fromWidget = { 'content-type': 'application/json', origin: 'http://widget.localhost:5171' }

/** A SIWE message for the dev host on anvil's chain, claiming `address`, with a fresh API nonce. */
async function messageFor(address: Address): Promise<string> {
  const response = await app.request('/siwx/nonce?projectId=porthole-dev', {
    method: 'POST',
    headers: fromWidget,
  })
  expect(response.status).toBe(200)
  const { nonce } = SiwxNonce.parse(await response.json())
  return createSiweMessage({
    address,
    chainId: 31337,
    scheme: 'http',
    domain: '127.0.0.1:5170',
    uri: host,
    nonce,
    version: '1',
    statement: 'Sign in with a smart account',
  })
}

function postSession(message: string, signature: Hex) {
  return app.request('/siwx/sessions?projectId=porthole-dev', {
    method: 'POST',
    headers: fromWidget,
    body: JSON.stringify({ message, signature }),
  })
}

async function errorCode(response: Response) {
  return {
    status: response.status,
    code: ((await response.json()) as { error: { code: string } }).error.code,
  }
}

describe('EIP-1271: a deployed smart account', () => {
  test('the contract is owned by the owner key', async () => {
    const read = await clients.publicClient.readContract({
      address: smartAccount,
      abi: smartAccountAbi,
      functionName: 'owner',
    })
    expect(read).toBe(owner.address)
  })

  test("the owner's personal_sign of the message signs the account in", async () => {
    const message = await messageFor(smartAccount)
    const signature = await owner.signMessage({ message })
    const response = await postSession(message, signature)
    expect(response.status).toBe(201)
    const session = SiwxSession.parse(await response.json())
    expect(session).toMatchObject({ address: smartAccount, chainId: 'eip155:31337' })

    const checked = await app.request(
      `/siwx/sessions/check?projectId=porthole-dev&origin=${encodeURIComponent(host)}`,
      { headers: { authorization: `Bearer ${session.token}` } },
    )
    expect(checked.status).toBe(200)
    expect(SiwxSessionCheck.parse(await checked.json()).address).toBe(smartAccount)
  })

  test("another key's signature is refused", async () => {
    const message = await messageFor(smartAccount)
    const signature = await stranger.signMessage({ message })
    expect(await errorCode(await postSession(message, signature))).toEqual({
      status: 401,
      code: 'invalid_signature',
    })
  })

  test("the owner's signature of another message is refused", async () => {
    const message = await messageFor(smartAccount)
    const signature = await owner.signMessage({ message: await messageFor(smartAccount) })
    expect(await errorCode(await postSession(message, signature))).toEqual({
      status: 401,
      code: 'invalid_signature',
    })
  })
})

describe('EIP-6492: a smart account not deployed yet', () => {
  async function counterfactual(salt: Hex) {
    const address = await clients.publicClient.readContract({
      address: factory,
      abi: factoryAbi,
      functionName: 'addressOf',
      args: [owner.address, salt],
    })
    const factoryData = encodeFunctionData({
      abi: factoryAbi,
      functionName: 'deploy',
      args: [owner.address, salt],
    })
    const wrap = (signature: Hex) =>
      serializeErc6492Signature({ address: factory, data: factoryData, signature })
    return { address, wrap }
  }

  test("the owner's signature, wrapped with the factory call, signs the account in", async () => {
    const { address, wrap } = await counterfactual(`0x${'01'.repeat(32)}`)
    expect(await clients.publicClient.getCode({ address })).toBeUndefined()
    const message = await messageFor(address)
    const response = await postSession(message, wrap(await owner.signMessage({ message })))
    expect(response.status).toBe(201)
    expect(SiwxSession.parse(await response.json()).address).toBe(address)
    // Checked in a simulation: nothing was deployed.
    expect(await clients.publicClient.getCode({ address })).toBeUndefined()
  })

  test("another key's wrapped signature is refused", async () => {
    const { address, wrap } = await counterfactual(`0x${'02'.repeat(32)}`)
    const message = await messageFor(address)
    const response = await postSession(message, wrap(await stranger.signMessage({ message })))
    expect(await errorCode(response)).toEqual({ status: 401, code: 'invalid_signature' })
  })
})
