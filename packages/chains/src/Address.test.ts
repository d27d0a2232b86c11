import { describe, expect, test } from 'vitest'
import * as Address from './Address.js'

const evm = '0xab16a96D359eC26a11e2C2b3d8f8B8942d5Bfcdb'
const solana = '7S3P4HxJpyyigGzodYwHtCxZyUQe9JiBMHyRWXArAaKv'
const bitcoin = '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'

describe('validateEvm', () => {
  test.each([
    [evm, true],
    [evm.slice(2), true], // the 0x prefix is optional
    [evm.toLowerCase(), true],
    [`0x${'0'.repeat(40)}`, true],
    [`0x${'F'.repeat(40)}`, true],
    [evm.slice(0, -1), false], // 39 hex digits
    [`${evm}a`, false], // 41 hex digits
    [`0X${evm.slice(2)}`, false],
    [`0x${'g'.repeat(40)}`, false],
    [` ${evm}`, false],
    ['0x', false],
    ['', false],
    [solana, false],
  ])('%j is %s', (address, expected) => {
    expect(Address.validateEvm(address)).toBe(expected)
  })
})

describe('validateSolana', () => {
  test.each([
    [solana, true], // 44 characters
    ['11111111111111111111111111111111', true], // 32 characters
    ['So11111111111111111111111111111111111111112', true],
    ['1'.repeat(31), false],
    ['1'.repeat(45), false],
    [`${solana.slice(0, -1)}0`, false], // 0 is not base58
    [`${solana.slice(0, -1)}O`, false],
    [`${solana.slice(0, -1)}I`, false],
    [`${solana.slice(0, -1)}l`, false],
    [evm, false],
    ['', false],
  ])('%j is %s', (address, expected) => {
    expect(Address.validateSolana(address)).toBe(expected)
  })
})

describe('validateBitcoin', () => {
  test.each([
    [bitcoin, true], // P2PKH
    ['3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', true], // P2SH
    ['mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn', true], // testnet P2PKH
    ['2MzQwSSnBHWHqSAqtTVQ6v47XtaisrJa1Vc', true], // testnet P2SH
    ['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', true], // P2WPKH
    ['bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297', true], // taproot
    ['tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', true], // testnet and signet
    ['BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', true], // upper case bech32
    ['bc1qAr0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', false], // mixed case
    ['bc1qbr0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', false], // b is not bech32
    ['bc1qar0s', false], // too short
    ['ltc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', false],
    ['4J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', false],
    ['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfN0', false], // 0 is not base58
    [evm, false],
    ['', false],
  ])('%j is %s', (address, expected) => {
    expect(Address.validateBitcoin(address)).toBe(expected)
  })
})

describe('validate', () => {
  test.each([
    [evm, 'eip155', true],
    [evm, 'solana', false],
    [evm, 'bip122', false],
    [solana, 'solana', true],
    [solana, 'eip155', false],
    [bitcoin, 'bip122', true],
    [bitcoin, 'eip155', false],
    [evm, 'cosmos', false],
    [evm, '', false],
  ])('%s in %s is %s', (address, namespace, expected) => {
    expect(Address.validate(address, namespace)).toBe(expected)
  })

  test('rejects a value that is not a string', () => {
    expect(Address.validate(42 as unknown as string, 'eip155')).toBe(false)
  })
})

describe('truncate', () => {
  test.each([
    [evm, '0xab…5Bfcdb'],
    [solana, '7S3P…ArAaKv'],
    [bitcoin, '1A1z…DivfNa'],
    ['abcdefghijkl', 'abcd…ghijkl'], // 12 characters: the shortest that is cut
    ['abcdefghijk', 'abcdefghijk'], // 11 characters: cutting would not shorten it
    ['0x1234', '0x1234'],
    ['', ''],
  ])('%j shows as %j', (address, expected) => {
    expect(Address.truncate(address)).toBe(expected)
  })

  test('keeps 4 leading and 6 trailing characters', () => {
    const truncated = Address.truncate(evm)
    const [leading, trailing] = truncated.split('…')
    expect(leading).toBe(evm.slice(0, Address.truncateLeading))
    expect(trailing).toBe(evm.slice(-Address.truncateTrailing))
    expect(Address.truncateLeading).toBe(4)
    expect(Address.truncateTrailing).toBe(6)
  })
})
