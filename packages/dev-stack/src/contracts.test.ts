/**
 * The e2e ERC-20: compiled from contracts/TestToken.sol with solc-js, deployed
 * to a real anvil on a free port, and exercised through viem.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  type Abi,
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  getContract,
  type Hex,
  parseEventLogs,
  zeroAddress,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createAnvilClients, type LocalAnvil, startAnvil } from './anvil.ts'
import {
  CompileError,
  compileContract,
  deployTestToken,
  TEST_TOKEN_SOURCE,
  testTokenAbi,
} from './contracts.ts'

/** Anvil's default dev accounts 0, 1 and 2. */
const OWNER_KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const SPENDER_KEY: Hex = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'
const OWNER: Address = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const SPENDER = privateKeyToAccount(SPENDER_KEY).address
const RECIPIENT: Address = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'

/** 1 000 tokens at 6 decimals. */
const MINTED = 1_000_000_000n

let anvil: LocalAnvil | undefined
let rpcUrl: string
let tempDir: string

beforeAll(async () => {
  tempDir = mkdtempSync(join(tmpdir(), 'porthole-solc-'))
  anvil = await startAnvil()
  rpcUrl = anvil.url
})

afterAll(async () => {
  await anvil?.stop()
  if (tempDir) rmSync(tempDir, { recursive: true, force: true })
})

function clients() {
  const owner = createAnvilClients({ rpcUrl, privateKey: OWNER_KEY })
  return {
    publicClient: owner.publicClient,
    owner: owner.walletClient,
    spender: createAnvilClients({ rpcUrl, privateKey: SPENDER_KEY }).walletClient,
  }
}

/** A fresh token per test (6 decimals, MINTED to OWNER), to read and as each account to write. */
async function deployUsd() {
  const { address } = await deployTestToken({
    rpcUrl,
    privateKey: OWNER_KEY,
    name: 'Test USD',
    symbol: 'TUSD',
    decimals: 6,
    mint: [{ to: OWNER, amount: MINTED }],
  })
  const { publicClient, owner, spender } = clients()
  const token = getContract({ address, abi: testTokenAbi, client: publicClient })
  const balanceOf = (account: Address) => token.read.balanceOf([account])
  const mined = async (hash: Promise<Hex>) =>
    publicClient.waitForTransactionReceipt({ hash: await hash })
  return {
    token,
    owner: getContract({ address, abi: testTokenAbi, client: owner }),
    spender: getContract({ address, abi: testTokenAbi, client: spender }),
    balanceOf,
    mined,
  }
}

/** The custom error a rejected contract call reverted with, decoded by viem. */
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
  return { errorName: reverted.data?.errorName, args: reverted.data?.args }
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
  const items = JSON.parse(json) as { type: string; name?: string }[]
  const order = (item: { type: string; name?: string }) => `${item.type}:${item.name ?? ''}`
  return items.toSorted((a, b) => order(a).localeCompare(order(b)))
}

describe('compileContract', () => {
  test('compiles TestToken to bytecode and an ABI with the ERC-20 functions', () => {
    const { abi, bytecode } = compileContract(TEST_TOKEN_SOURCE, 'TestToken')
    expect(bytecode).toMatch(/^0x(?:[0-9a-f]{2})+$/)
    const functions = abi.flatMap((item) => (item.type === 'function' ? [item.name] : []))
    expect(functions).toEqual(
      expect.arrayContaining(['transfer', 'balanceOf', 'approve', 'transferFrom', 'mint']),
    )
  })

  test('the typed testTokenAbi matches what solc emits', () => {
    const { abi } = compileContract(TEST_TOKEN_SOURCE, 'TestToken')
    expect(normalizeAbi(abi)).toEqual(normalizeAbi(testTokenAbi))
  })

  test('returns the cached result for the same file and contract', () => {
    const first = compileContract(TEST_TOKEN_SOURCE, 'TestToken')
    expect(compileContract(TEST_TOKEN_SOURCE, 'TestToken')).toBe(first)
  })

  test('throws listing the contracts found when the name is unknown', () => {
    expect(() => compileContract(TEST_TOKEN_SOURCE, 'Missing')).toThrow(
      /No deployable contract Missing .*found: TestToken/,
    )
  })

  test('throws a CompileError carrying solc’s messages for a broken source', () => {
    const file = join(tempDir, 'Broken.sol')
    writeFileSync(
      file,
      [
        '// SPDX-License-Identifier: MIT',
        'pragma solidity ^0.8.20;',
        'contract Broken {',
        '  function f() external pure returns (uint256) { return missing; }',
        '}',
      ].join('\n'),
    )
    let thrown: unknown
    try {
      compileContract(file, 'Broken')
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(CompileError)
    const error = thrown as CompileError
    expect(error.message).toContain(`Solidity compilation of ${file} failed`)
    expect(error.message).toContain('DeclarationError: Undeclared identifier.')
    expect(error.messages).toHaveLength(1)
    expect(error.messages[0]).toContain('Broken.sol:4:')
  })
})

describe('deployTestToken', () => {
  test('deploys with the given metadata and mints to the dev account', async () => {
    const { token, balanceOf } = await deployUsd()
    expect(await token.read.name()).toBe('Test USD')
    expect(await token.read.symbol()).toBe('TUSD')
    expect(await token.read.decimals()).toBe(6)
    expect(await token.read.totalSupply()).toBe(MINTED)
    expect(await balanceOf(OWNER)).toBe(MINTED)
  })

  test('defaults to Test Token, TEST, 18 decimals and no supply', async () => {
    const { address, abi } = await deployTestToken({ rpcUrl, privateKey: OWNER_KEY })
    const { publicClient } = clients()
    const [name, symbol, decimals, totalSupply] = await Promise.all([
      publicClient.readContract({ address, abi, functionName: 'name' }),
      publicClient.readContract({ address, abi, functionName: 'symbol' }),
      publicClient.readContract({ address, abi, functionName: 'decimals' }),
      publicClient.readContract({ address, abi, functionName: 'totalSupply' }),
    ])
    expect({ name, symbol, decimals, totalSupply }).toEqual({
      name: 'Test Token',
      symbol: 'TEST',
      decimals: 18,
      totalSupply: 0n,
    })
  })

  test('transfer moves the balance and emits Transfer', async () => {
    const { owner, balanceOf, mined } = await deployUsd()
    const receipt = await mined(owner.write.transfer([RECIPIENT, 250n]))
    expect(receipt.status).toBe('success')
    const events = parseEventLogs({ abi: testTokenAbi, logs: receipt.logs })
    expect(events.map(({ eventName, args }) => ({ eventName, args }))).toEqual([
      { eventName: 'Transfer', args: { from: OWNER, to: RECIPIENT, value: 250n } },
    ])
    expect(await balanceOf(OWNER)).toBe(MINTED - 250n)
    expect(await balanceOf(RECIPIENT)).toBe(250n)
  })

  test('transfer beyond the balance reverts with ERC20InsufficientBalance', async () => {
    const { spender, balanceOf } = await deployUsd()
    const revert = await revertOf(spender.write.transfer([RECIPIENT, 1n]))
    expect(revert).toEqual({ errorName: 'ERC20InsufficientBalance', args: [SPENDER, 0n, 1n] })
    expect(await balanceOf(RECIPIENT)).toBe(0n)
  })

  test('transferFrom without an allowance reverts with ERC20InsufficientAllowance', async () => {
    const { spender, balanceOf } = await deployUsd()
    const revert = await revertOf(spender.write.transferFrom([OWNER, RECIPIENT, 1n]))
    expect(revert).toEqual({ errorName: 'ERC20InsufficientAllowance', args: [SPENDER, 0n, 1n] })
    expect(await balanceOf(OWNER)).toBe(MINTED)
  })

  test('approve then transferFrom spends the allowance', async () => {
    const { token, owner, spender, balanceOf, mined } = await deployUsd()
    const allowance = () => token.read.allowance([OWNER, SPENDER])

    const approval = await mined(owner.write.approve([SPENDER, 100n]))
    expect(parseEventLogs({ abi: testTokenAbi, logs: approval.logs }).map((e) => e.args)).toEqual([
      { owner: OWNER, spender: SPENDER, value: 100n },
    ])
    expect(await allowance()).toBe(100n)

    const spent = await mined(spender.write.transferFrom([OWNER, RECIPIENT, 60n]))
    expect(spent.status).toBe('success')
    expect(await allowance()).toBe(40n)
    expect(await balanceOf(OWNER)).toBe(MINTED - 60n)
    expect(await balanceOf(RECIPIENT)).toBe(60n)

    const revert = await revertOf(spender.write.transferFrom([OWNER, RECIPIENT, 41n]))
    expect(revert).toEqual({ errorName: 'ERC20InsufficientAllowance', args: [SPENDER, 40n, 41n] })
  })

  test('anyone may mint, and minting emits Transfer from the zero address', async () => {
    const { token, spender, balanceOf, mined } = await deployUsd()
    const receipt = await mined(spender.write.mint([RECIPIENT, 5n]))
    expect(parseEventLogs({ abi: testTokenAbi, logs: receipt.logs }).map((e) => e.args)).toEqual([
      { from: zeroAddress, to: RECIPIENT, value: 5n },
    ])
    expect(await balanceOf(RECIPIENT)).toBe(5n)
    expect(await token.read.totalSupply()).toBe(MINTED + 5n)
  })
})
