import { describe, expect, test, vi } from 'vitest'
import { createApprovalQueue, type Shown } from './queue.js'

type Item = { id: string; params: unknown }

/** A queue whose presenter records what it shows; hash = JSON of the item. */
function setup() {
  const shown: Shown<Item>[] = []
  const removed: string[] = []
  const present = vi.fn((approval: Shown<Item>) => {
    shown.push(approval)
    return () => removed.push(approval.item.id)
  })
  const queue = createApprovalQueue<Item>({ hash: (item) => JSON.stringify(item), present })
  const last = () => {
    const approval = shown.at(-1)
    if (!approval) throw new Error('nothing shown')
    return approval
  }
  return { queue, shown, removed, present, last }
}

const settled = async (promise: Promise<unknown>) => {
  let state = 'pending'
  promise.then(
    () => {
      state = 'resolved'
    },
    () => {
      state = 'rejected'
    },
  )
  await new Promise((resolve) => setTimeout(resolve, 0))
  return state
}

describe('inv-06 createApprovalQueue', () => {
  test('shows one approval at a time, first come first shown', async () => {
    const { queue, shown, last } = setup()
    const a = queue.request({ id: 'a', params: 1 })
    const b = queue.request({ id: 'b', params: 2 })
    expect(shown.map((approval) => approval.item.id)).toEqual(['a'])
    expect(queue.waiting).toBe(1)
    expect(last().approve(last().hash)).toBe(true)
    await expect(a).resolves.toBeUndefined()
    expect(shown.map((approval) => approval.item.id)).toEqual(['a', 'b'])
    last().reject()
    await expect(b).rejects.toMatchObject({
      code: 4001,
      shortMessage: 'User rejected the request.',
    })
    expect(queue.showing).toBe(false)
  })

  test("A's approval never settles B: not with A's hash, not through A's stale handle", async () => {
    const { queue, last } = setup()
    const a = queue.request({ id: 'a', params: 1 })
    const b = queue.request({ id: 'b', params: 2 })
    const shownA = last()
    expect(shownA.approve(shownA.hash)).toBe(true)
    await a
    const shownB = last()
    expect(shownB.item.id).toBe('b')
    // A replayed click on A's (removed) approval, and B approved with A's hash.
    expect(shownA.approve(shownA.hash)).toBe(false)
    expect(shownB.approve(shownA.hash)).toBe(false)
    shownA.reject()
    expect(await settled(b)).toBe('pending')
    expect(shownB.approve(shownB.hash)).toBe(true)
    await expect(b).resolves.toBeUndefined()
  })

  test('an approval with any other hash does nothing', async () => {
    const { queue, last } = setup()
    const a = queue.request({ id: 'a', params: 1 })
    expect(last().approve('0'.repeat(64))).toBe(false)
    expect(await settled(a)).toBe('pending')
  })

  test('a request changed after it was shown is rejected, never approved', async () => {
    const { queue, last } = setup()
    const item = { id: 'a', params: { to: '0x1' } }
    const a = queue.request(item)
    const approval = last()
    item.params = { to: '0xevil' }
    expect(approval.approve(approval.hash)).toBe(false)
    await expect(a).rejects.toMatchObject({
      code: -32602,
      shortMessage: 'The request changed after it was shown.',
    })
  })

  test('the hash is taken when the approval is shown, not when it was queued', async () => {
    const { queue, last } = setup()
    const a = queue.request({ id: 'a', params: 1 })
    const item = { id: 'b', params: 'queued' }
    const b = queue.request(item)
    item.params = 'changed while waiting'
    last().approve(last().hash)
    await a
    expect(last().hash).toBe(JSON.stringify({ id: 'b', params: 'changed while waiting' }))
    last().reject()
    await expect(b).rejects.toMatchObject({ code: 4001 })
  })

  test('settles each approval once; later calls do nothing', async () => {
    const { queue, last, removed } = setup()
    const a = queue.request({ id: 'a', params: 1 })
    const approval = last()
    approval.reject()
    approval.reject()
    expect(approval.approve(approval.hash)).toBe(false)
    await expect(a).rejects.toMatchObject({ code: 4001 })
    expect(removed).toEqual(['a'])
  })
})

describe('inv-17 createApprovalQueue', () => {
  test('an abort while showing rejects with 4001 Request was aborted, removes it, shows the next', async () => {
    const { queue, shown, removed } = setup()
    const controller = new AbortController()
    const a = queue.request({ id: 'a', params: 1 }, controller.signal)
    const b = queue.request({ id: 'b', params: 2 })
    controller.abort()
    await expect(a).rejects.toMatchObject({ code: 4001, shortMessage: 'Request was aborted' })
    expect(removed).toEqual(['a'])
    expect(shown.map((approval) => approval.item.id)).toEqual(['a', 'b'])
    expect(await settled(b)).toBe('pending')
  })

  test('an abort while waiting rejects and is never shown', async () => {
    const { queue, shown, last } = setup()
    const a = queue.request({ id: 'a', params: 1 })
    const controller = new AbortController()
    const b = queue.request({ id: 'b', params: 2 }, controller.signal)
    controller.abort()
    await expect(b).rejects.toMatchObject({ code: 4001, shortMessage: 'Request was aborted' })
    expect(queue.waiting).toBe(0)
    last().approve(last().hash)
    await a
    expect(shown.map((approval) => approval.item.id)).toEqual(['a'])
  })

  test('an already aborted signal rejects at once', async () => {
    const { queue, present } = setup()
    await expect(queue.request({ id: 'a', params: 1 }, AbortSignal.abort())).rejects.toMatchObject({
      code: 4001,
      shortMessage: 'Request was aborted',
    })
    expect(present).not.toHaveBeenCalled()
  })

  test('a presenter that throws rejects that request and shows the next', async () => {
    const shown: string[] = []
    const queue = createApprovalQueue<Item>({
      hash: (item) => JSON.stringify(item),
      present: (approval) => {
        shown.push(approval.item.id)
        if (approval.item.id === 'a') throw new Error('no DOM')
        return () => {}
      },
    })
    const a = queue.request({ id: 'a', params: 1 })
    const b = queue.request({ id: 'b', params: 2 })
    await expect(a).rejects.toMatchObject({ code: -32603, shortMessage: 'Something went wrong' })
    expect(shown).toEqual(['a', 'b'])
    expect(await settled(b)).toBe('pending')
  })

  test('a request that cannot be hashed is refused, not shown', async () => {
    const { queue, present } = setup()
    await expect(queue.request({ id: 'a', params: 1n })).rejects.toMatchObject({ code: -32602 })
    expect(present).not.toHaveBeenCalled()
  })

  test('the abort listener is removed once settled', async () => {
    const { queue, last } = setup()
    const controller = new AbortController()
    const remove = vi.spyOn(controller.signal, 'removeEventListener')
    const a = queue.request({ id: 'a', params: 1 }, controller.signal)
    last().approve(last().hash)
    await a
    expect(remove).toHaveBeenCalledWith('abort', expect.any(Function))
    controller.abort()
  })
})
