import { describe, expect, test } from 'vitest'
import packageJson from '../../package.json' with { type: 'json' }
import { ping } from './ping.js'

describe('ping', () => {
  test("answers the frame's version, within the contract's bound", () => {
    const { version } = ping()
    expect(version).toBe(packageJson.version)
    expect(version.length).toBeLessThanOrEqual(32)
  })
})
