import { describe, expect, test } from 'vitest'
import { createMemory } from '../session.js'
import {
  type Bundle,
  type Call,
  getBundle,
  inTurn,
  maxBundles,
  type Receipt,
  rememberBundle,
  sendInOrder,
  statusOf,
} from './calls.js'

const account = '0x000000000000000000000000000000000000dEaD'
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const
const receipt = (status: '0x0' | '0x1'): Receipt => ({
  status,
  blockHash: hash(1),
  blockNumber: '0x1',
  gasUsed: '0x5208',
  transactionHash: hash(2),
  logs: [],
})
const ok = receipt('0x1')
const reverted = receipt('0x0')
const bundle = (hashes: number): Bundle => ({
  chainId: 'eip155:1',
  account,
  hashes: Array.from({ length: hashes }, (_, index) => hash(index)),
  complete: true,
})

describe('statusOf', () => {
  test.each<[string, (Receipt | undefined)[], boolean, number]>([
    ['nothing mined yet: pending', [undefined, undefined], true, 100],
    ['one of two mined: pending', [ok, undefined], true, 100],
    ['a revert while another is pending: pending', [reverted, undefined], true, 100],
    ['every call succeeded: confirmed', [ok, ok], true, 200],
    ['every call reverted: reverted', [reverted, reverted], true, 500],
    ['some reverted: partially reverted', [ok, reverted], true, 600],
    ['sending stopped after calls that succeeded: partially reverted', [ok], false, 600],
    ['sending stopped after calls that reverted: reverted', [reverted], false, 500],
    ['nothing sent: offchain failure', [], false, 400],
  ])('%s', (_, receipts, complete, status) => {
    expect(statusOf(receipts, complete)).toBe(status)
  })
})

describe('rememberBundle', () => {
  test(`keeps the last ${maxBundles} bundles and forgets the oldest`, () => {
    const memory = createMemory()
    for (let index = 0; index <= maxBundles; index++)
      rememberBundle(memory, `id-${index}`, bundle(1))
    expect(() => getBundle(memory, 'id-0', account)).toThrow(
      expect.objectContaining({ code: 5730 }),
    )
    expect(getBundle(memory, 'id-1', account)).toEqual(bundle(1))
    expect(getBundle(memory, `id-${maxBundles}`, account)).toEqual(bundle(1))
  })

  test("bundles are the frame's own: another frame's memory does not see them", () => {
    const memory = createMemory()
    rememberBundle(memory, 'id', bundle(2))
    expect(() => getBundle(createMemory(), 'id', account)).toThrow(
      expect.objectContaining({ code: 5730 }),
    )
  })
})

describe('sendInOrder', () => {
  test('sends one call after the other and returns every hash', async () => {
    const sent: number[] = []
    const calls: Call[] = [{ to: account }, { to: account }, { to: account }]
    await expect(
      sendInOrder(calls, async (_, index) => {
        sent.push(index)
        return hash(index)
      }),
    ).resolves.toEqual({ hashes: [hash(0), hash(1), hash(2)], complete: true })
    expect(sent).toEqual([0, 1, 2])
  })

  test('a failure before anything was sent is thrown', async () => {
    await expect(
      sendInOrder([{ to: account }], () => Promise.reject(new Error('insufficient funds'))),
    ).rejects.toThrow('insufficient funds')
  })

  test('a failure after a call was sent stops the batch and keeps what was sent', async () => {
    const sent: number[] = []
    const calls: Call[] = [{ to: account }, { to: account }, { to: account }]
    await expect(
      sendInOrder(calls, async (_, index) => {
        if (index === 1) throw new Error('execution reverted')
        sent.push(index)
        return hash(index)
      }),
    ).resolves.toEqual({ hashes: [hash(0)], complete: false })
    expect(sent).toEqual([0])
  })
})

describe('inTurn', () => {
  test("a frame's sends run one at a time, in order, even after a failure", async () => {
    const memory = createMemory()
    const log: string[] = []
    let release = () => {}
    const first = inTurn(memory, async () => {
      log.push('first starts')
      await new Promise<void>((resolve) => {
        release = resolve
      })
      log.push('first ends')
      throw new Error('first failed')
    })
    const second = inTurn(memory, async () => {
      log.push('second')
      return 2
    })
    await expect.poll(() => log).toEqual(['first starts'])
    release()
    await expect(first).rejects.toThrow('first failed')
    await expect(second).resolves.toBe(2)
    expect(log).toEqual(['first starts', 'first ends', 'second'])
  })
})
