/**
 * The Solana keys of the local stack, all derived, none stored: the dev
 * accounts from the dev mnemonic at m/44'/501'/i'/0' (BIP-39 seed, SLIP-0010
 * ed25519: the path the embedded wallet uses for its account 0, and Phantom's),
 * and the dev token's mint from a fixed seed.
 */
import { createHash, createHmac, pbkdf2Sync } from 'node:crypto'
import { Keypair } from '@solana/web3.js'
import { devMnemonic } from './stack.ts'

/** How many Solana dev accounts the node funds at start-up (0–9, as anvil's). */
export const devAccountCount = 10

/** Solana dev account `index`: SOL and the dev token on a fresh local node. */
export function devSolanaKeypair(index: number): Keypair {
  return Keypair.fromSeed(deriveEd25519(bip39Seed(devMnemonic), `m/44'/501'/${index}'/0'`))
}

/** The dev token's mint (`devSolanaToken.address`): seed SHA-256 of `porthole solana dev token mint`. */
export function devSolanaTokenMint(): Keypair {
  return Keypair.fromSeed(createHash('sha256').update('porthole solana dev token mint').digest())
}

/** The BIP-39 seed of an English mnemonic with no passphrase. */
function bip39Seed(mnemonic: string): Buffer {
  return pbkdf2Sync(mnemonic.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512')
}

/** SLIP-0010 ed25519: the private key (32 bytes) at a path of hardened indexes only. */
function deriveEd25519(seed: Buffer, path: string): Buffer {
  const split = (key: Buffer | string, data: Buffer) => {
    const digest = createHmac('sha512', key).update(data).digest()
    return { key: digest.subarray(0, 32), chainCode: digest.subarray(32) }
  }
  let node = split('ed25519 seed', seed)
  for (const segment of path.split('/').slice(1)) {
    const index = Buffer.alloc(4)
    index.writeUInt32BE((Number(segment.replace("'", '')) | 0x8000_0000) >>> 0)
    node = split(node.chainCode, Buffer.concat([Buffer.from([0]), node.key, index]))
  }
  return node.key
}
