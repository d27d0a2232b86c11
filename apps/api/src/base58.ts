/**
 * Base58 (the Bitcoin alphabet, as Solana writes keys and signatures). Small
 * inputs only: keys and signatures, bounded by the schemas before they get here.
 */
const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
const values = new Map([...alphabet].map((char, index) => [char, BigInt(index)]))

/** The bytes of a base58 string, or `undefined` when it holds a character outside the alphabet. */
export function fromBase58(text: string): Uint8Array | undefined {
  let value = 0n
  for (const char of text) {
    const digit = values.get(char)
    if (digit === undefined) return undefined
    value = value * 58n + digit
  }
  const bytes: number[] = []
  while (value > 0n) {
    bytes.unshift(Number(value & 0xffn))
    value >>= 8n
  }
  // Each leading '1' is a leading zero byte.
  const zeros = text.length - text.replace(/^1+/, '').length
  return Uint8Array.from([...new Array<number>(zeros).fill(0), ...bytes])
}

/** `bytes` in base58. */
export function toBase58(bytes: Uint8Array): string {
  let value = 0n
  for (const byte of bytes) value = (value << 8n) | BigInt(byte)
  let text = ''
  while (value > 0n) {
    text = alphabet[Number(value % 58n)] + text
    value /= 58n
  }
  let zeros = 0
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++
  return '1'.repeat(zeros) + text
}
