/**
 * ENS on a local anvil: what viem's `getEnsName`, `getEnsAddress`,
 * `getEnsText` and `getEnsAvatar` call, so the widget resolves a real name on
 * the local chain. The contracts are minimal ones written to the ENS
 * specifications (contracts/Ens*.sol say what each implements and leaves
 * out), compiled with solc-js as `contracts.ts` compiles the others: ENS's own
 * artifacts are not published in a package reachable here.
 *
 * `deployEns` deploys the registry, the reverse registrar, the public resolver
 * and the UniversalResolver from one key, in that order, and gives `reverse`,
 * `addr.reverse` (to the reverse registrar) and `eth` their owners;
 * `registerName` then names an address. `deployDevEns` is what `npm start`
 * does: dev account 8 deploys them (at `devEns`' addresses on a fresh node)
 * and names dev account 1 `porthole-dev.eth`.
 */
import { join } from 'node:path'
import {
  type Address,
  createPublicClient,
  getAddress,
  getContract,
  type Hex,
  http,
  labelhash,
  namehash,
  parseAbi,
  zeroHash,
} from 'viem'
import { createAnvilClients, devKey } from './anvil.ts'
import { compileContract } from './contracts.ts'
import { devEns } from './stack.ts'

const source = (file: string) => join(import.meta.dirname, 'contracts', file)

export const ENS_SOURCES = {
  registry: source('EnsRegistry.sol'),
  publicResolver: source('EnsPublicResolver.sol'),
  reverseRegistrar: source('EnsReverseRegistrar.sol'),
  universalResolver: source('EnsUniversalResolver.sol'),
} as const

/**
 * The contracts' ABIs, typed for viem; ens.test.ts asserts each matches what
 * solc emits (and the UniversalResolver's, what viem calls).
 */
export const ensRegistryAbi = parseAbi([
  'constructor()',
  'function owner(bytes32 node) view returns (address)',
  'function resolver(bytes32 node) view returns (address)',
  'function ttl(bytes32 node) view returns (uint64)',
  'function setOwner(bytes32 node, address owner_)',
  'function setSubnodeOwner(bytes32 node, bytes32 label, address owner_) returns (bytes32)',
  'function setResolver(bytes32 node, address resolver_)',
  'function setTTL(bytes32 node, uint64 ttl_)',
  'function setSubnodeRecord(bytes32 node, bytes32 label, address owner_, address resolver_, uint64 ttl_)',
  'event NewOwner(bytes32 indexed node, bytes32 indexed label, address owner)',
  'event Transfer(bytes32 indexed node, address owner)',
  'event NewResolver(bytes32 indexed node, address resolver)',
  'event NewTTL(bytes32 indexed node, uint64 ttl)',
  'error Unauthorized(bytes32 node)',
])

export const ensPublicResolverAbi = parseAbi([
  'constructor(address ens_, address trustedReverseRegistrar_)',
  'function ens() view returns (address)',
  'function trustedReverseRegistrar() view returns (address)',
  'function supportsInterface(bytes4 interfaceId) pure returns (bool)',
  'function addr(bytes32 node) view returns (address)',
  'function addr(bytes32 node, uint256 coinType) view returns (bytes)',
  'function setAddr(bytes32 node, address a)',
  'function setAddr(bytes32 node, uint256 coinType, bytes a)',
  'function name(bytes32 node) view returns (string)',
  'function setName(bytes32 node, string newName)',
  'function text(bytes32 node, string key) view returns (string)',
  'function setText(bytes32 node, string key, string value)',
  'event AddrChanged(bytes32 indexed node, address a)',
  'event AddressChanged(bytes32 indexed node, uint256 coinType, bytes newAddress)',
  'event NameChanged(bytes32 indexed node, string name)',
  'event TextChanged(bytes32 indexed node, string indexed indexedKey, string key, string value)',
  'error Unauthorized(bytes32 node)',
])

export const ensReverseRegistrarAbi = parseAbi([
  'constructor(address ens_)',
  'function ADDR_REVERSE_NODE() view returns (bytes32)',
  'function ens() view returns (address)',
  'function owner() view returns (address)',
  'function defaultResolver() view returns (address)',
  'function controllers(address controller) view returns (bool)',
  'function setDefaultResolver(address resolver)',
  'function setController(address controller, bool enabled)',
  'function claim(address owner_) returns (bytes32)',
  'function claimWithResolver(address owner_, address resolver) returns (bytes32)',
  'function claimForAddr(address addr, address owner_, address resolver) returns (bytes32)',
  'function setName(string name) returns (bytes32)',
  'function setNameForAddr(address addr, address owner_, address resolver, string name) returns (bytes32)',
  'function node(address addr) pure returns (bytes32)',
  'event ReverseClaimed(address indexed addr, bytes32 indexed node)',
  'event DefaultResolverChanged(address indexed resolver)',
  'event ControllerChanged(address indexed controller, bool enabled)',
  'error Unauthorized(address addr)',
])

export const ensUniversalResolverAbi = parseAbi([
  'constructor(address registry_)',
  'function registry() view returns (address)',
  'function supportsInterface(bytes4 interfaceId) pure returns (bool)',
  'function findResolver(bytes name) view returns (address resolver, bytes32 node, uint256 offset)',
  'function resolve(bytes name, bytes data) view returns (bytes, address)',
  'function resolveWithGateways(bytes name, bytes data, string[]) view returns (bytes result, address resolver)',
  'function reverse(bytes lookupAddress, uint256 coinType) view returns (string, address, address)',
  'function reverseWithGateways(bytes lookupAddress, uint256 coinType, string[]) view returns (string primary, address resolver, address reverseResolver)',
  'error DNSDecodingFailed(bytes dns)',
  'error DNSEncodingFailed(string ens)',
  'error EmptyAddress()',
  'error ResolverError(bytes errorData)',
  'error ResolverNotContract(bytes name, address resolver)',
  'error ResolverNotFound(bytes name)',
  'error ReverseAddressMismatch(string primary, bytes primaryAddress)',
  'error UnsupportedResolverProfile(bytes4 selector)',
])

export type EnsContracts = {
  registry: Address
  reverseRegistrar: Address
  publicResolver: Address
  universalResolver: Address
}

export type RegisterNameOptions = {
  /** The label under `eth`: `porthole-dev` for `porthole-dev.eth`. */
  label: string
  /** The name's owner in the end, and the address it resolves to. */
  owner: Address
  /** Text records (ENSIP-5), e.g. `{ avatar: 'data:image/svg+xml;base64,…' }`. */
  texts?: Record<string, string>
  /** Also the owner's primary name (its reverse record); true unless told. */
  primary?: boolean
}

export type EnsDeployment = EnsContracts & {
  /** Registers `<label>.eth` (see the options), each step mined; resolves with the name. */
  registerName(options: RegisterNameOptions): Promise<string>
  /**
   * Sets `address`'s primary name to `name` as the deployer (a controller of
   * the reverse registrar) may, whatever `name` resolves to.
   */
  setPrimaryName(address: Address, name: string): Promise<void>
}

export type DeployEnsOptions = {
  rpcUrl: string
  /** The deployer: it owns the root and `eth`, and controls the reverse registrar. */
  privateKey: Hex
}

const ethNode = namehash('eth')
const reverseNode = namehash('reverse')

/**
 * Deploys the four contracts from `privateKey`'s account on the node at
 * `rpcUrl` (its next four nonces, in the order of `EnsContracts`), then sets
 * up `reverse`, `addr.reverse` and `eth`. Resolves once every transaction is
 * mined.
 */
export async function deployEns(options: DeployEnsOptions): Promise<EnsDeployment> {
  const { rpcUrl, privateKey } = options
  const chainId = await createPublicClient({
    transport: http(rpcUrl, { retryCount: 0 }),
  }).getChainId()
  const { account, publicClient, walletClient } = createAnvilClients({
    rpcUrl,
    privateKey,
    chainId,
  })

  const mined = async (what: string, hash: Promise<Hex>) => {
    const sent = await hash
    const receipt = await publicClient.waitForTransactionReceipt({ hash: sent })
    if (receipt.status !== 'success') throw new Error(`${what} failed (transaction ${sent}).`)
    return receipt
  }
  const deploy = async (what: keyof typeof ENS_SOURCES, name: string, args: readonly unknown[]) => {
    const { abi, bytecode } = compileContract(ENS_SOURCES[what], name)
    const receipt = await mined(
      `Deploying ${name}`,
      walletClient.deployContract({ abi, bytecode, args }),
    )
    if (!receipt.contractAddress) throw new Error(`Deploying ${name} made no contract.`)
    return getAddress(receipt.contractAddress)
  }

  const registry = await deploy('registry', 'EnsRegistry', [])
  const reverseRegistrar = await deploy('reverseRegistrar', 'EnsReverseRegistrar', [registry])
  const publicResolver = await deploy('publicResolver', 'EnsPublicResolver', [
    registry,
    reverseRegistrar,
  ])
  const universalResolver = await deploy('universalResolver', 'EnsUniversalResolver', [registry])

  const client = walletClient
  const registryContract = getContract({ address: registry, abi: ensRegistryAbi, client })
  const resolverContract = getContract({
    address: publicResolver,
    abi: ensPublicResolverAbi,
    client,
  })
  const registrarContract = getContract({
    address: reverseRegistrar,
    abi: ensReverseRegistrarAbi,
    client,
  })

  const { setSubnodeOwner } = registryContract.write
  await mined(
    'Claiming reverse',
    setSubnodeOwner([zeroHash, labelhash('reverse'), account.address]),
  )
  await mined(
    'Giving addr.reverse to the reverse registrar',
    setSubnodeOwner([reverseNode, labelhash('addr'), reverseRegistrar]),
  )
  await mined('Claiming eth', setSubnodeOwner([zeroHash, labelhash('eth'), account.address]))
  await mined(
    'Setting the default resolver',
    registrarContract.write.setDefaultResolver([publicResolver]),
  )
  await mined(
    'Making the deployer a reverse controller',
    registrarContract.write.setController([account.address, true]),
  )

  const setPrimaryName = async (address: Address, name: string) => {
    await mined(
      `Setting the primary name of ${address}`,
      registrarContract.write.setNameForAddr([address, address, publicResolver, name]),
    )
  }

  const registerName = async ({
    label,
    owner,
    texts = {},
    primary = true,
  }: RegisterNameOptions) => {
    const name = `${label}.eth`
    const node = namehash(name)
    // The deployer holds the name while it writes the records, then hands it over.
    await mined(
      `Registering ${name}`,
      registryContract.write.setSubnodeRecord([
        ethNode,
        labelhash(label),
        account.address,
        publicResolver,
        0n,
      ]),
    )
    await mined(`Setting the address of ${name}`, resolverContract.write.setAddr([node, owner]))
    for (const [key, value] of Object.entries(texts))
      await mined(`Setting ${key} of ${name}`, resolverContract.write.setText([node, key, value]))
    await mined(`Giving ${name} to ${owner}`, registryContract.write.setOwner([node, owner]))
    if (primary) await setPrimaryName(owner, name)
    return name
  }

  return {
    registry,
    reverseRegistrar,
    publicResolver,
    universalResolver,
    registerName,
    setPrimaryName,
  }
}

/**
 * `npm start`'s ENS: dev account 8 deploys it, which on a fresh node puts it at
 * `devEns`' addresses (checked: a node that is not fresh throws), and dev
 * account 1 becomes `porthole-dev.eth` with its avatar.
 */
export async function deployDevEns(rpcUrl: string): Promise<EnsDeployment> {
  const ens = await deployEns({ rpcUrl, privateKey: devKey(devEns.deployerIndex) })
  for (const key of [
    'registry',
    'reverseRegistrar',
    'publicResolver',
    'universalResolver',
  ] as const)
    if (ens[key].toLowerCase() !== devEns[key].toLowerCase())
      throw new Error(`The ENS ${key} landed at ${ens[key]}, not ${devEns[key]}: was anvil fresh?`)
  await ens.registerName({
    label: devEns.name.slice(0, -'.eth'.length),
    owner: devEns.owner,
    texts: { avatar: devEns.avatar },
  })
  return ens
}
