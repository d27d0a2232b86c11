import { expect, test } from 'vitest'
import { ports } from './stack.js'

test('every part of the stack, the e2e stand-ins and the bench listen on a port of their own', () => {
  // The price API stand-in once took the bench's port (5179): `npm run bench` could not start.
  const taken = Object.values(ports)
  expect(new Set(taken).size).toBe(taken.length)
})
