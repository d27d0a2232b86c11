import { describe, expect, test } from 'vitest'
import { buildIndex, buildLoader, buildSolana, sizes } from '../scripts/build.ts'

const [loader, solana, index] = await Promise.all([buildLoader(), buildSolana(), buildIndex()])

describe('buildLoader', () => {
  // 5 KB, with the BaseError (~90 bytes, issue 12) and the Wallet Standard's detection
  // and the bridge's import (~150, issue 13) paid for by terser's passes after esbuild.
  test('loader.js is at most 5 KB with brotli', () => {
    expect(sizes(loader.text).brotli).toBeLessThanOrEqual(5 * 1024)
  })

  test('loader-solana.js, loaded only for the Wallet Standard, is at most 6 KB with brotli', () => {
    expect(sizes(solana.text).brotli).toBeLessThanOrEqual(6 * 1024)
  })

  test('loader.js holds no Solana bridge: only its import, beside loader.js', () => {
    expect(
      loader.inputs.filter((input) => /solana|standardWallets|portholeStandard/.test(input)),
    ).toEqual([])
    expect(loader.text).toContain('/loader-solana.js`')
    expect(solana.text).toMatch(/export\s*\{[^}]*createSolanaBridge/)
  })

  test('inv-01 loader-solana.js opens no new way to the widget: no message, no port, no global', () => {
    expect(solana.text).not.toMatch(
      /postMessage|MessageChannel|onmessage|addEventListener\(["'`]message/,
    )
    expect(solana.text).not.toMatch(/\b(?:window|globalThis|self)\s*\.\s*\w+\s*=[^=]/)
  })

  test.each([
    ['loader.js', loader],
    ['loader-solana.js', solana],
    ['index.js', index],
  ])('%s bundles no zod', (_, built) => {
    expect(built.inputs.length).toBeGreaterThan(5)
    expect(built.inputs.filter((input) => /zod/i.test(input))).toEqual([])
    expect(built.text).not.toMatch(/zod|ZodError|_zod/i)
  })

  test.each([
    ['loader.js', loader],
    ['loader-solana.js', solana],
    ['index.js', index],
  ])('%s bundles no test helper (their every module sets a marker)', (_, built) => {
    expect(built.text).not.toContain('porthole:test-only')
  })

  test.each([
    ['loader.js', loader],
    ['index.js', index],
  ])("inv-02 %s posts nothing with target origin '*'", (_, built) => {
    const calls = built.text.match(/postMessage\([^;]*/g) ?? []
    // The handshake's hello and the channel's port messages.
    expect(calls.length).toBeGreaterThanOrEqual(2)
    for (const call of calls) expect(call).not.toMatch(/["'`]\*["'`]/)
    expect(built.text).not.toMatch(/["'`]\*["'`]/)
  })

  test('the frame is created without allow-top-navigation, granted clipboard-write only', () => {
    expect(loader.text).toContain(
      'allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox allow-forms',
    )
    expect(loader.text).not.toMatch(/allow-top-navigation|"allow"/)
    expect(loader.text.match(/\.allow\s*=\s*"([^"]*)"/g)).toEqual(['.allow="clipboard-write"'])
  })
})
