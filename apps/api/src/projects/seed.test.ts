import { origins } from '@porthole/dev-stack/stack'
import { describe, expect, test } from 'vitest'
import { devProjectOrigins } from './seed.js'

describe('devProjectOrigins', () => {
  test("allow the dev stack's demo host, by its 127.0.0.1 and localhost names, and no other site", () => {
    const demo = new URL(origins.demo)
    expect(devProjectOrigins).toEqual([origins.demo, `http://localhost:${demo.port}`])
    expect(devProjectOrigins).not.toContain(origins.evil)
  })
})
