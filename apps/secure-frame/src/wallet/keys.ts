/**
 * The wallet's keys (DESIGN 4), pure: 128 bits of BIP-39 entropy are the
 * wallet. From them come the mnemonic, the seed, the EVM account at
 * m/44'/60'/0'/0/0 (BIP-32, secp256k1) and the Solana account at
 * m/44'/501'/0'/0' (SLIP-0010, ed25519). The entropy is split 2-of-3 with
 * Shamir: a device share, an auth share and a recovery share, each base64.
 *
 * Callers own the bytes they get and zero them (`zero`) once done; strings
 * (the mnemonic, hex private keys inside viem) cannot be wiped.
 */
import { ed25519 } from '@noble/curves/ed25519'
import { hmac } from '@noble/hashes/hmac'
import { sha512 } from '@noble/hashes/sha2'
import type { Addresses } from '@porthole/protocol/Embedded'
import { base58, base64 } from '@scure/base'
import { HDKey } from '@scure/bip32'
import { entropyToMnemonic, mnemonicToEntropy, mnemonicToSeedSync } from '@scure/bip39'
import { wordlist } from '@scure/bip39/wordlists/english'
import { combine, split } from 'shamir-secret-sharing'
import { bytesToHex } from 'viem'
import { privateKeyToAddress } from 'viem/accounts'
import { BaseError } from '../lib/errors.js'

/** Bytes of entropy in a new wallet: 128 bits, a 12-word mnemonic. */
export const entropyBytes = 16
export const evmPath = "m/44'/60'/0'/0/0"
export const solanaPath = "m/44'/501'/0'/0'"

const hardened = 0x80000000

/** Key material that cannot be what it claims: bad entropy, a bad path, shares that do not fit. */
export class InvalidKeyError extends BaseError {
  override name = 'InvalidKeyError'
}

/** Overwrites the bytes with zeros. */
export function zero(...buffers: Array<Uint8Array | null | undefined>): void {
  for (const buffer of buffers) buffer?.fill(0)
}

/** 128 fresh random bits from the platform's CSPRNG. */
export function createEntropy(): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(entropyBytes))
}

function assertEntropy(entropy: Uint8Array): void {
  if (![16, 20, 24, 28, 32].includes(entropy.length))
    throw new InvalidKeyError(`Entropy must be 16-32 bytes, not ${entropy.length}.`)
}

export function toMnemonic(entropy: Uint8Array): string {
  assertEntropy(entropy)
  return entropyToMnemonic(entropy, wordlist)
}

/** The entropy of an English BIP-39 mnemonic; throws on a bad word or checksum. */
export function fromMnemonic(mnemonic: string): Uint8Array {
  try {
    return mnemonicToEntropy(mnemonic, wordlist)
  } catch (cause) {
    throw new InvalidKeyError('Not a valid mnemonic.', { cause })
  }
}

/** The 64-byte BIP-39 seed (no passphrase). */
export function toSeed(entropy: Uint8Array): Uint8Array {
  return mnemonicToSeedSync(toMnemonic(entropy))
}

/** The secp256k1 private key at `path` (BIP-32). */
export function deriveSecp256k1(seed: Uint8Array, path: string = evmPath): Uint8Array {
  const root = HDKey.fromMasterSeed(seed)
  const child = root.derive(path)
  const key = child.privateKey
  if (!key) throw new InvalidKeyError(`No private key at ${path}.`)
  const copy = Uint8Array.from(key)
  root.wipePrivateData()
  child.wipePrivateData()
  return copy
}

/** One node of a SLIP-0010 ed25519 tree: the private key and the chain code (32 bytes each). */
export type Ed25519Node = { key: Uint8Array; chainCode: Uint8Array }

function hmacSplit(key: Uint8Array, data: Uint8Array): Ed25519Node {
  const digest = hmac(sha512, key, data)
  const node = { key: digest.slice(0, 32), chainCode: digest.slice(32) }
  zero(digest)
  return node
}

/** Parses `m/a'/b'/…`: ed25519 under SLIP-0010 has hardened children only. */
function parseHardenedPath(path: string): number[] {
  const parts = path.split('/')
  if (parts[0] !== 'm') throw new InvalidKeyError(`A path starts with m: ${path}`)
  return parts.slice(1).map((part) => {
    const match = /^(\d{1,10})'$/.exec(part)
    const index = match ? Number(match[1]) : Number.NaN
    if (!(index < hardened))
      throw new InvalidKeyError(`ed25519 derivation takes hardened indexes only: ${path}`)
    return index + hardened
  })
}

/**
 * SLIP-0010 ed25519 derivation: the master node is HMAC-SHA512 keyed with
 * "ed25519 seed" over the seed; each hardened child is HMAC-SHA512 keyed with
 * the parent chain code over 0x00 ‖ parent key ‖ index (big-endian).
 */
export function deriveEd25519(seed: Uint8Array, path: string = solanaPath): Ed25519Node {
  const indexes = parseHardenedPath(path)
  let node = hmacSplit(new TextEncoder().encode('ed25519 seed'), seed)
  const data = new Uint8Array(37)
  for (const index of indexes) {
    data.set(node.key, 1)
    new DataView(data.buffer).setUint32(33, index, false)
    const child = hmacSplit(node.chainCode, data)
    zero(node.key, node.chainCode)
    node = child
  }
  zero(data)
  return node
}

export function toEvmAddress(privateKey: Uint8Array): Addresses['eip155'] {
  return privateKeyToAddress(bytesToHex(privateKey))
}

/** A Solana address: the base58 ed25519 public key. */
export function toSolanaAddress(privateKey: Uint8Array): Addresses['solana'] {
  return base58.encode(ed25519.getPublicKey(privateKey))
}

/** The wallet's EVM and Solana addresses. */
export function toAddresses(entropy: Uint8Array): Addresses {
  const seed = toSeed(entropy)
  const evm = deriveSecp256k1(seed, evmPath)
  const solana = deriveEd25519(seed, solanaPath)
  try {
    return { eip155: toEvmAddress(evm), solana: toSolanaAddress(solana.key) }
  } finally {
    zero(seed, evm, solana.key, solana.chainCode)
  }
}

/** Whether two address sets name the same wallet (EVM addresses compared case-insensitively). */
export function isSameWallet(a: Addresses, b: Addresses): boolean {
  return a.eip155.toLowerCase() === b.eip155.toLowerCase() && a.solana === b.solana
}

/** The three shares of a wallet, base64: any two rebuild its entropy. */
export type Shares = { device: string; auth: string; recovery: string }

/** Splits the entropy 2-of-3. */
export async function splitEntropy(entropy: Uint8Array): Promise<Shares> {
  assertEntropy(entropy)
  const parts = await split(entropy, 3, 2)
  const [device, auth, recovery] = parts.map((part) => base64.encode(part))
  zero(...parts)
  if (!device || !auth || !recovery) throw new InvalidKeyError('Shamir split failed.')
  return { device, auth, recovery }
}

/** Rebuilds the entropy from two shares; throws when they are not two shares of one secret's size. */
export async function combineShares(a: string, b: string): Promise<Uint8Array> {
  let parts: Uint8Array[] = []
  try {
    parts = [base64.decode(a), base64.decode(b)]
    const entropy = await combine(parts)
    assertEntropy(entropy)
    return entropy
  } catch (cause) {
    if (cause instanceof InvalidKeyError) throw cause
    throw new InvalidKeyError('The shares do not combine.', { cause })
  } finally {
    zero(...parts)
  }
}
