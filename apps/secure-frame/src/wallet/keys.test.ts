import { ed25519 } from '@noble/curves/ed25519'
import { Share } from '@porthole/protocol/Embedded'
import { base64 } from '@scure/base'
import { HDKey } from '@scure/bip32'
import fc from 'fast-check'
import { bytesToHex, hexToBytes } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { describe, expect, test } from 'vitest'
import {
  combineShares,
  createEntropy,
  deriveEd25519,
  deriveSecp256k1,
  fromMnemonic,
  InvalidKeyError,
  isSameWallet,
  splitEntropy,
  toAddresses,
  toMnemonic,
  toSeed,
  zero,
} from './keys.js'

const abandon =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const abandonAddresses = {
  eip155: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
  solana: 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk',
}

describe('toMnemonic', () => {
  test('round-trips entropy through a 12-word mnemonic', () => {
    const entropy = createEntropy()
    const mnemonic = toMnemonic(entropy)
    expect(mnemonic.split(' ')).toHaveLength(12)
    expect(fromMnemonic(mnemonic)).toEqual(entropy)
  })

  test('the zero entropy is the abandon … about mnemonic', () => {
    expect(toMnemonic(new Uint8Array(16))).toBe(abandon)
  })

  test.each([new Uint8Array(0), new Uint8Array(15), new Uint8Array(17)])(
    'refuses entropy of %o bytes',
    (entropy) => {
      expect(() => toMnemonic(entropy)).toThrow(InvalidKeyError)
    },
  )

  test('a bad checksum is not a mnemonic', () => {
    expect(() => fromMnemonic(abandon.replace(/about$/, 'abandon'))).toThrow(InvalidKeyError)
  })
})

describe('toSeed', () => {
  test('is the BIP-39 seed (no passphrase) of the mnemonic', () => {
    // BIP-39 vector for the zero entropy, without the 'TREZOR' passphrase.
    expect(bytesToHex(toSeed(new Uint8Array(16)))).toBe(
      '0x5eb00bbddcf069084889a8ab9155568165f5c453ccb85e70811aaed6f6da5fc19a5ac40b389cd370d086206dec8aa6c43daea6690f20ad3d8d48b2d2ce9e38e4',
    )
  })
})

describe('toAddresses', () => {
  test('abandon ×11 about gives the well-known EVM and Solana addresses', () => {
    expect(toAddresses(fromMnemonic(abandon))).toEqual(abandonAddresses)
  })

  test("the EVM address matches viem's own HD account", () => {
    const entropy = createEntropy()
    const expected = mnemonicToAccount(toMnemonic(entropy)).address
    expect(toAddresses(entropy).eip155).toBe(expected)
  })
})

describe('deriveSecp256k1', () => {
  test('matches @scure/bip32 and wipes nothing the caller holds', () => {
    const seed = toSeed(createEntropy())
    const key = deriveSecp256k1(seed)
    const expected = HDKey.fromMasterSeed(seed).derive("m/44'/60'/0'/0/0").privateKey
    expect(key).toEqual(expected)
  })
})

describe('deriveEd25519', () => {
  // SLIP-0010, test vector 1 for ed25519 (public keys carry a 0x00 prefix there).
  const seed = hexToBytes('0x000102030405060708090a0b0c0d0e0f')
  test.each([
    [
      'm',
      '90046a93de5380a72b5e45010748567d5ea02bbf6522f979e05c0d8d8ca9fffb',
      '2b4be7f19ee27bbf30c667b642d5f4aa69fd169872f8fc3059c08ebae2eb19e7',
      'a4b2856bfec510abab89753fac1ac0e1112364e7d250545963f135f2a33188ed',
    ],
    [
      "m/0'",
      '8b59aa11380b624e81507a27fedda59fea6d0b779a778918a2fd3590e16e9c69',
      '68e0fe46dfb67e368c75379acec591dad19df3cde26e63b93a8e704f1dade7a3',
      '8c8a13df77a28f3445213a0f432fde644acaa215fc72dcdf300d5efaa85d350c',
    ],
    [
      "m/0'/1'",
      'a320425f77d1b5c2505a6b1b27382b37368ee640e3557c315416801243552f14',
      'b1d0bad404bf35da785a64ca1ac54b2617211d2777696fbffaf208f746ae84f2',
      '1932a5270f335bed617d5b935c80aedb1a35bd9fc1e31acafd5372c30f5c1187',
    ],
    [
      "m/0'/1'/2'",
      '2e69929e00b5ab250f49c3fb1c12f252de4fed2c1db88387094a0f8c4c9ccd6c',
      '92a5b23c0b8a99e37d07df3fb9966917f5d06e02ddbd909c7e184371463e9fc9',
      'ae98736566d30ed0e9d2f4486a64bc95740d89c7db33f52121f8ea8f76ff0fc1',
    ],
  ])('SLIP-0010 vector 1, %s', (path, chainCode, key, publicKey) => {
    const node = deriveEd25519(seed, path)
    expect(bytesToHex(node.chainCode).slice(2)).toBe(chainCode)
    expect(bytesToHex(node.key).slice(2)).toBe(key)
    expect(bytesToHex(ed25519.getPublicKey(node.key)).slice(2)).toBe(publicKey)
  })

  test.each(["m/44'/501'/0'/0", 'm/0', "44'/501'", "m/4294967296'", "m/-1'"])(
    'refuses the path %s (hardened indexes only)',
    (path) => {
      expect(() => deriveEd25519(seed, path)).toThrow(InvalidKeyError)
    },
  )
})

describe('splitEntropy', () => {
  test('makes three distinct base64 shares that fit the wire schema', async () => {
    const shares = await splitEntropy(createEntropy())
    const values = [shares.device, shares.auth, shares.recovery]
    for (const share of values) expect(Share.safeParse(share).success).toBe(true)
    expect(new Set(values).size).toBe(3)
    for (const share of values) expect(base64.decode(share)).toHaveLength(17)
  })

  test('any two of the three shares rebuild the entropy', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        fc.constantFrom([0, 1], [0, 2], [1, 2], [1, 0], [2, 0], [2, 1]),
        async (entropy, [i = 0, j = 1]) => {
          const { device, auth, recovery } = await splitEntropy(entropy)
          const shares = [device, auth, recovery]
          const rebuilt = await combineShares(shares[i] ?? '', shares[j] ?? '')
          expect(rebuilt).toEqual(entropy)
        },
      ),
      { numRuns: 200 },
    )
  })

  test('any two of the three shares rebuild the same addresses', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        fc.constantFrom([0, 1], [0, 2], [1, 2]),
        async (entropy, [i = 0, j = 1]) => {
          const expected = toAddresses(entropy)
          const { device, auth, recovery } = await splitEntropy(entropy)
          const shares = [device, auth, recovery]
          const rebuilt = await combineShares(shares[j] ?? '', shares[i] ?? '')
          expect(isSameWallet(toAddresses(rebuilt), expected)).toBe(true)
        },
      ),
      { numRuns: 15 },
    )
  })

  test('two splits of one wallet do not mix: shares of different splits give another secret or fail', async () => {
    const entropy = createEntropy()
    const first = await splitEntropy(entropy)
    const second = await splitEntropy(entropy)
    const mixed = await combineShares(first.device, second.auth).catch(() => undefined)
    if (mixed) expect(mixed).not.toEqual(entropy)
  })

  test('one share alone is refused', async () => {
    const { device } = await splitEntropy(createEntropy())
    await expect(combineShares(device, device)).rejects.toThrow(InvalidKeyError)
  })
})

describe('zero', () => {
  test('overwrites every buffer given and skips missing ones', () => {
    const a = Uint8Array.of(1, 2, 3)
    const b = Uint8Array.of(4)
    zero(a, null, b, undefined)
    expect([...a, ...b]).toEqual([0, 0, 0, 0])
  })
})

describe('isSameWallet', () => {
  test('compares EVM addresses without case and Solana addresses exactly', () => {
    const lower = { ...abandonAddresses, eip155: abandonAddresses.eip155.toLowerCase() }
    expect(isSameWallet(lower, abandonAddresses)).toBe(true)
    const solana = { ...abandonAddresses, solana: abandonAddresses.solana.toLowerCase() }
    expect(isSameWallet(solana, abandonAddresses)).toBe(false)
  })
})
