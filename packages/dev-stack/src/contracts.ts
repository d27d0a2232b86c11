/**
 * Contracts for the e2e suite, compiled from our own Solidity source with solc-js
 * (the `solc` npm package: no compiler download) and deployed to a local anvil.
 *
 * `compileContract` compiles a source file once per process; `deployTestToken`
 * deploys `contracts/TestToken.sol`, an ERC-20 anyone may mint, and mints the
 * balances a test asks for; `deployIdRegistry` deploys `contracts/IdRegistry.sol`,
 * a stand-in for Farcaster's IdRegistry, and registers the fids a test asks for.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'
import { type Abi, type Address, createPublicClient, type Hex, http, isHex, parseAbi } from 'viem'
import { createAnvilClients } from './anvil.ts'

/** The part of solc-js used here (its own typings are all `any`). */
type Solc = {
  version(): string
  compile(
    input: string,
    callbacks?: { import?: (path: string) => { contents: string } | { error: string } },
  ): string
}

/** The parts of solc's standard JSON output read here. */
type SolcOutput = {
  errors?: { severity: 'error' | 'warning' | 'info'; message: string; formattedMessage?: string }[]
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>
}

export type CompiledContract = { abi: Abi; bytecode: Hex }

/** Thrown when solc reports errors; `messages` are solc's own, formatted with their source location. */
export class CompileError extends Error {
  override name = 'CompileError'
  constructor(
    file: string,
    readonly messages: readonly string[],
  ) {
    super(`Solidity compilation of ${file} failed:\n${messages.join('\n')}`)
  }
}

export const TEST_TOKEN_SOURCE = join(import.meta.dirname, 'contracts', 'TestToken.sol')

/**
 * The ABI of `contracts/TestToken.sol`, typed for viem. Written out so calls are
 * checked at compile time; contracts.test.ts asserts it matches what solc emits.
 */
export const testTokenAbi = parseAbi([
  'constructor(string name_, string symbol_, uint8 decimals_)',
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function decimals() view returns (uint8)',
  'function totalSupply() view returns (uint256)',
  'function balanceOf(address account) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'function transfer(address to, uint256 value) returns (bool)',
  'function approve(address spender, uint256 value) returns (bool)',
  'function transferFrom(address from, address to, uint256 value) returns (bool)',
  'function mint(address to, uint256 value)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event Approval(address indexed owner, address indexed spender, uint256 value)',
  'error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)',
  'error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)',
  'error ERC20InvalidSender(address sender)',
  'error ERC20InvalidReceiver(address receiver)',
  'error ERC20InvalidApprover(address approver)',
  'error ERC20InvalidSpender(address spender)',
])

export type TestTokenAbi = typeof testTokenAbi

const requireCjs = createRequire(import.meta.url)
let solc: Solc | undefined
/** Loaded on first use: solc-js takes about a second to start. */
const loadSolc = () => {
  solc ??= requireCjs('solc') as Solc
  return solc
}

/** By resolved path, then contract name. Every contract of a compiled file is cached at once. */
const cache = new Map<string, Map<string, CompiledContract>>()

/**
 * Compiles contract `name` from the Solidity file `file` (relative paths resolve
 * against the working directory; imports against the importing file) with the
 * optimizer on, for the Cancun EVM. Results are cached per file for the process.
 */
export function compileContract(file: string, name: string): CompiledContract {
  const path = resolve(file)
  let contracts = cache.get(path)
  if (!contracts) {
    contracts = compileFile(path)
    cache.set(path, contracts)
  }
  const contract = contracts.get(name)
  if (!contract) {
    const known = [...contracts.keys()].join(', ') || 'none'
    throw new Error(`No deployable contract ${name} in ${path} (found: ${known}).`)
  }
  return contract
}

function compileFile(path: string): Map<string, CompiledContract> {
  const input = {
    language: 'Solidity',
    sources: { [path]: { content: readFileSync(path, 'utf8') } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      outputSelection: { [path]: { '*': ['abi', 'evm.bytecode.object'] } },
    },
  }
  const output = JSON.parse(
    loadSolc().compile(JSON.stringify(input), {
      // Source unit names are absolute paths, so solc hands us resolved paths to read.
      import: (importPath) => {
        try {
          return { contents: readFileSync(importPath, 'utf8') }
        } catch (error) {
          return { error: error instanceof Error ? error.message : String(error) }
        }
      },
    }),
  ) as SolcOutput
  const errors = (output.errors ?? []).filter((error) => error.severity === 'error')
  if (errors.length > 0)
    throw new CompileError(
      path,
      errors.map((error) => (error.formattedMessage ?? error.message).trim()),
    )

  const contracts = new Map<string, CompiledContract>()
  for (const [contractName, { abi, evm }] of Object.entries(output.contracts?.[path] ?? {})) {
    const bytecode = `0x${evm.bytecode.object}`
    // Interfaces and abstract contracts have no bytecode; unlinked libraries leave placeholders.
    if (bytecode === '0x' || !isHex(bytecode)) continue
    contracts.set(contractName, { abi, bytecode })
  }
  return contracts
}

export type DeployTestTokenOptions = {
  rpcUrl: string
  privateKey: Hex
  /** Defaults to 'Test Token'. */
  name?: string
  /** Defaults to 'TEST'. */
  symbol?: string
  /** Defaults to 18. */
  decimals?: number
  /** Minted in order after deployment, each in its own transaction. */
  mint?: { to: Address; amount: bigint }[]
}

/**
 * Deploys `contracts/TestToken.sol` from `privateKey`'s account on the node at
 * `rpcUrl` (its chain id is read from the node), then mints `mint`. Resolves
 * once every transaction is mined.
 */
export async function deployTestToken(
  options: DeployTestTokenOptions,
): Promise<{ address: Address; abi: TestTokenAbi }> {
  const { rpcUrl, privateKey, name = 'Test Token', symbol = 'TEST', decimals = 18 } = options
  const { bytecode } = compileContract(TEST_TOKEN_SOURCE, 'TestToken')

  const chainId = await createPublicClient({
    transport: http(rpcUrl, { retryCount: 0 }),
  }).getChainId()
  const { publicClient, walletClient } = createAnvilClients({ rpcUrl, privateKey, chainId })

  const hash = await walletClient.deployContract({
    abi: testTokenAbi,
    bytecode,
    args: [name, symbol, decimals],
  })
  const receipt = await publicClient.waitForTransactionReceipt({ hash })
  const address = receipt.contractAddress
  if (receipt.status !== 'success' || !address)
    throw new Error(`Deploying TestToken failed (transaction ${hash}).`)

  for (const { to, amount } of options.mint ?? []) {
    const mintHash = await walletClient.writeContract({
      address,
      abi: testTokenAbi,
      functionName: 'mint',
      args: [to, amount],
    })
    const mintReceipt = await publicClient.waitForTransactionReceipt({ hash: mintHash })
    if (mintReceipt.status !== 'success')
      throw new Error(`Minting ${amount} TestToken to ${to} failed (transaction ${mintHash}).`)
  }

  return { address, abi: testTokenAbi }
}

export const ID_REGISTRY_SOURCE = join(import.meta.dirname, 'contracts', 'IdRegistry.sol')

/** An EIP-1271 smart account owned by one key, with a factory (EIP-6492 tests). */
export const SMART_ACCOUNT_SOURCE = join(import.meta.dirname, 'contracts', 'SmartAccount.sol')

/**
 * The ABI of `contracts/IdRegistry.sol`, typed for viem; contracts.test.ts
 * asserts it matches what solc emits. `custodyOf` is the real IdRegistry's.
 */
export const idRegistryAbi = parseAbi([
  'constructor()',
  'function owner() view returns (address)',
  'function custodyOf(uint256 fid) view returns (address)',
  'function register(uint256 fid, address custody)',
  'event Register(address indexed to, uint256 indexed id)',
  'error Unauthorized()',
  'error InvalidFid()',
])

export type IdRegistryAbi = typeof idRegistryAbi

export type DeployIdRegistryOptions = {
  rpcUrl: string
  /** The deployer, the only account that may register. */
  privateKey: Hex
  /** Registered in order after deployment, each in its own transaction. */
  register?: { fid: bigint | number; custody: Address }[]
}

/**
 * Deploys `contracts/IdRegistry.sol` from `privateKey`'s account on the node at
 * `rpcUrl`, then registers `register`. Resolves once every transaction is
 * mined, with `register()` for fids added later.
 */
export async function deployIdRegistry(options: DeployIdRegistryOptions): Promise<{
  address: Address
  abi: IdRegistryAbi
  register(fid: bigint | number, custody: Address): Promise<void>
}> {
  const { rpcUrl, privateKey } = options
  const { bytecode } = compileContract(ID_REGISTRY_SOURCE, 'IdRegistry')
  const chainId = await createPublicClient({
    transport: http(rpcUrl, { retryCount: 0 }),
  }).getChainId()
  const { publicClient, walletClient } = createAnvilClients({ rpcUrl, privateKey, chainId })

  const hash = await walletClient.deployContract({ abi: idRegistryAbi, bytecode })
  const receipt = await publicClient.waitForTransactionReceipt({ hash })
  const address = receipt.contractAddress
  if (receipt.status !== 'success' || !address)
    throw new Error(`Deploying IdRegistry failed (transaction ${hash}).`)

  const register = async (fid: bigint | number, custody: Address) => {
    const registerHash = await walletClient.writeContract({
      address,
      abi: idRegistryAbi,
      functionName: 'register',
      args: [BigInt(fid), custody],
    })
    const registered = await publicClient.waitForTransactionReceipt({ hash: registerHash })
    if (registered.status !== 'success')
      throw new Error(`Registering fid ${fid} failed (transaction ${registerHash}).`)
  }
  for (const { fid, custody } of options.register ?? []) await register(fid, custody)
  return { address, abi: idRegistryAbi, register }
}

export const TEST_NFT_SOURCE = join(import.meta.dirname, 'contracts', 'TestNft.sol')

/** The ABIs of `contracts/TestNft.sol`'s ERC-721 and ERC-1155, typed for viem. */
export const testNftAbi = parseAbi([
  'constructor(string name_, string symbol_)',
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function ownerOf(uint256 tokenId) view returns (address)',
  'function balanceOf(address owner) view returns (uint256)',
  'function mint(address to, uint256 tokenId)',
  'function airdrop(address[] recipients, uint256 firstId)',
  'function transferFrom(address from, address to, uint256 tokenId)',
  'event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)',
  'error AlreadyMinted(uint256 tokenId)',
  'error NotOwner(address caller, uint256 tokenId)',
  'error InvalidReceiver(address receiver)',
])
export const testMultiTokenAbi = parseAbi([
  'function balanceOf(uint256 id, address account) view returns (uint256)',
  'function mint(address to, uint256 id, uint256 value)',
  'function mintBatch(address to, uint256[] ids, uint256[] values)',
  'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
  'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
  'error LengthMismatch()',
])

/**
 * Deploys `contracts/TestNft.sol`'s `TestNft` (ERC-721, `name`, `symbol`) or
 * `TestMultiToken` (ERC-1155) from `privateKey`'s account; resolves with its
 * address once mined.
 */
export async function deployTestNft(
  options: { rpcUrl: string; privateKey: Hex } & (
    | { kind: 'erc721'; name: string; symbol: string }
    | { kind: 'erc1155' }
  ),
): Promise<Address> {
  const { rpcUrl, privateKey } = options
  const chainId = await createPublicClient({
    transport: http(rpcUrl, { retryCount: 0 }),
  }).getChainId()
  const { publicClient, walletClient } = createAnvilClients({ rpcUrl, privateKey, chainId })
  const hash =
    options.kind === 'erc721'
      ? await walletClient.deployContract({
          abi: testNftAbi,
          bytecode: compileContract(TEST_NFT_SOURCE, 'TestNft').bytecode,
          args: [options.name, options.symbol],
        })
      : await walletClient.deployContract({
          abi: testMultiTokenAbi,
          bytecode: compileContract(TEST_NFT_SOURCE, 'TestMultiToken').bytecode,
        })
  const receipt = await publicClient.waitForTransactionReceipt({ hash })
  if (receipt.status !== 'success' || !receipt.contractAddress)
    throw new Error(`Deploying ${options.kind} test contract failed (transaction ${hash}).`)
  return receipt.contractAddress
}
