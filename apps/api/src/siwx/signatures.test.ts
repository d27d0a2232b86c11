import { generateKeyPairSync, sign } from 'node:crypto'
import { base58 } from '@scure/base'
import { describe, expect, test } from 'vitest'
import { createSignatureVerifier } from './signatures.js'

const verify = createSignatureVerifier({ rpcUpstreams: {}, timeoutMs: 1_000 })
const chainId = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'

/** A Solana key made by Node's crypto (not the library under test), its base58 address and a signer. */
function solanaKey() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519')
  // The raw 32 key bytes end the DER SubjectPublicKeyInfo.
  const key = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32)
  return {
    key,
    address: base58.encode(key),
    sign: (message: string) => sign(null, Buffer.from(message, 'utf8'), privateKey),
  }
}

describe('Solana (ed25519) signatures', () => {
  const message = 'example.com wants you to sign in with your Solana account'

  test('a base58 or 0x hex signature of the message by the address is valid', async () => {
    const { address, sign } = solanaKey()
    const signature = sign(message)
    expect(await verify({ chainId, address, message, signature: base58.encode(signature) })).toBe(
      true,
    )
    expect(
      await verify({ chainId, address, message, signature: `0x${signature.toString('hex')}` }),
    ).toBe(true)
  })

  test('another message, another key or a changed byte is invalid', async () => {
    const { address, sign } = solanaKey()
    const signature = sign(message)
    const other = solanaKey()
    expect(
      await verify({
        chainId,
        address,
        message: `${message}!`,
        signature: base58.encode(signature),
      }),
    ).toBe(false)
    expect(
      await verify({
        chainId,
        address: other.address,
        message,
        signature: base58.encode(signature),
      }),
    ).toBe(false)
    const changed = Buffer.from(signature)
    changed[10] = (changed[10] ?? 0) ^ 1
    expect(await verify({ chainId, address, message, signature: base58.encode(changed) })).toBe(
      false,
    )
  })

  test.each(['0', 'O', 'I', 'l', '+', ' '])(
    'a %j (outside the base58 alphabet) in the address or signature is invalid, not an error',
    async (char) => {
      const { address, sign } = solanaKey()
      const signature = base58.encode(sign(message))
      expect(await verify({ chainId, address: `${address}${char}`, message, signature })).toBe(
        false,
      )
      expect(await verify({ chainId, address, message, signature: `${signature}${char}` })).toBe(
        false,
      )
    },
  )

  test('a key that is not 32 bytes or a signature that is not 64 is invalid', async () => {
    const { key, address, sign } = solanaKey()
    const signature = sign(message)
    const signatureText = base58.encode(signature)
    expect(
      await verify({
        chainId,
        address: base58.encode(key.subarray(1)),
        message,
        signature: signatureText,
      }),
    ).toBe(false)
    expect(
      await verify({ chainId, address, message, signature: base58.encode(signature.subarray(1)) }),
    ).toBe(false)
  })

  test('a key that is no point of the curve is invalid, not an error', async () => {
    const { sign } = solanaKey()
    // y = 2 has no x on edwards25519.
    const notOnCurve = new Uint8Array(32)
    notOnCurve[0] = 2
    const signature = base58.encode(sign(message))
    expect(await verify({ chainId, address: base58.encode(notOnCurve), message, signature })).toBe(
      false,
    )
  })

  test('a Solana network given as another namespace is not checked as ed25519', async () => {
    const { address, sign } = solanaKey()
    const signature = base58.encode(sign(message))
    expect(await verify({ chainId: 'cosmos:cosmoshub-4', address, message, signature })).toBe(false)
  })
})
