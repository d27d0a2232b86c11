import { describe, expect, test } from 'vitest'
import { buildIndex, buildLoader, sizes } from '../scripts/build.ts'

const [loader, index] = await Promise.all([buildLoader(), buildIndex()])

describe('buildLoader', () => {
  // 5.1 KB since the one BaseError (walk, details from the cause) took ~90 bytes.
  test('loader.js is at most 5.1 KB with brotli', () => {
    expect(sizes(loader.text).brotli).toBeLessThanOrEqual(5.1 * 1024)
  })

  test.each([
    ['loader.js', loader],
    ['index.js', index],
  ])('%s bundles no zod', (_, built) => {
    expect(built.inputs.length).toBeGreaterThan(5)
    expect(built.inputs.filter((input) => /zod/i.test(input))).toEqual([])
    expect(built.text).not.toMatch(/zod|ZodError|_zod/i)
  })

  test.each([
    ['loader.js', loader],
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
