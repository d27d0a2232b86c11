import { ErrorCode, RpcError } from '@porthole/protocol/Errors'
import { afterEach, describe, expect, test } from 'vitest'
import { router } from '../../state/router.js'
import { currentView, initialState, store } from '../../state/store.js'
import { markApproved, withApproval } from './embedded.js'

afterEach(() => store.setState(initialState))

/** A request the test settles by hand, recording the signal it was given. */
function deferred() {
  let resolve!: (value: string) => void
  let reject!: (error: unknown) => void
  let signal: AbortSignal | undefined
  let approvalId: string | undefined
  const send = (given: AbortSignal, id: string) => {
    signal = given
    approvalId = id
    return new Promise<string>((res, rej) => {
      resolve = res
      reject = rej
      given.addEventListener('abort', () => rej(new RpcError(ErrorCode.internal, 'aborted')))
    })
  }
  return {
    send,
    resolve: (v: string) => resolve(v),
    reject: (e: unknown) => reject(e),
    signal: () => signal,
    /** The frame's `approved` event for this request. */
    approve: () => markApproved({ approvalId: approvalId as string }),
  }
}

describe('withApproval', () => {
  test('opens the closed modal on ApproveTransaction, then closes it again', async () => {
    const request = deferred()
    const result = withApproval('personal_sign', request.send)
    expect(store.getState().open).toBe(true)
    expect(currentView(store.getState())).toBe('ApproveTransaction')
    expect(store.getState().approval).toEqual({ method: 'personal_sign' })
    request.resolve('0xsigned')
    await expect(result).resolves.toBe('0xsigned')
    expect(store.getState().open).toBe(false)
    expect(store.getState().approval).toBeNull()
  })

  test('on an open modal it is pushed on the history, and Back is where it returns', async () => {
    store.setState({ open: true, history: ['Account', 'SignMessage'] })
    const request = deferred()
    const result = withApproval('personal_sign', request.send)
    expect(store.getState().history).toEqual(['Account', 'SignMessage', 'ApproveTransaction'])
    request.resolve('0x1')
    await result
    expect(store.getState().open).toBe(true)
    expect(store.getState().history).toEqual(['Account', 'SignMessage'])
  })

  test('inv-17 closing the modal aborts the request and answers 4001', async () => {
    const request = deferred()
    const result = withApproval('eth_sendTransaction', request.send)
    router.close()
    await expect(result).rejects.toMatchObject({ code: ErrorCode.userRejected })
    expect(request.signal()?.aborted).toBe(true)
    expect(store.getState().approval).toBeNull()
  })

  test("inv-17 the host's cancel (its timeout, its page gone) aborts the request and closes the view", async () => {
    const request = deferred()
    const cancel = new AbortController()
    const result = withApproval('eth_sendTransaction', request.send, store, cancel.signal)
    expect(currentView(store.getState())).toBe('ApproveTransaction')
    cancel.abort()
    await expect(result).rejects.toMatchObject({ code: ErrorCode.userRejected })
    expect(request.signal()?.aborted).toBe(true)
    expect(store.getState().approval).toBeNull()
    expect(store.getState().open).toBe(false)
  })

  test('inv-17 a request the host already gave up on is never shown as pending', async () => {
    const request = deferred()
    const cancel = new AbortController()
    cancel.abort()
    const result = withApproval('personal_sign', request.send, store, cancel.signal)
    await expect(result).rejects.toMatchObject({ code: ErrorCode.userRejected })
    expect(request.signal()).toBeUndefined()
    expect(store.getState().open).toBe(false)
  })

  test('inv-17 once the visitor approved, closing the modal no longer cancels: the host gets the real result', async () => {
    const request = deferred()
    const result = withApproval('eth_sendTransaction', request.send)
    request.approve()
    router.close()
    expect(request.signal()?.aborted).toBe(false)
    request.resolve('0xhash')
    await expect(result).resolves.toBe('0xhash')
  })

  test('inv-17 leaving the view aborts too', async () => {
    store.setState({ open: true, history: ['Account'] })
    const request = deferred()
    const result = withApproval('personal_sign', request.send)
    router.back()
    await expect(result).rejects.toMatchObject({ code: ErrorCode.userRejected })
    expect(request.signal()?.aborted).toBe(true)
    expect(store.getState().history).toEqual(['Account'])
  })

  test('the frame’s own answer passes through (Reject is 4001 from the frame)', async () => {
    const request = deferred()
    const result = withApproval('personal_sign', request.send)
    request.reject(new RpcError(ErrorCode.userRejected, 'User rejected the request.'))
    await expect(result).rejects.toMatchObject({
      code: ErrorCode.userRejected,
      message: 'User rejected the request.',
    })
    expect(request.signal()?.aborted).toBe(false)
  })

  test('while sign-in is required without a session the view cannot be closed, and nothing is aborted', async () => {
    store.setState({ siwx: { required: true }, session: null })
    const request = deferred()
    const result = withApproval('personal_sign', request.send)
    router.close()
    expect(store.getState().open).toBe(true)
    expect(request.signal()?.aborted).toBe(false)
    request.resolve('0x2')
    await expect(result).resolves.toBe('0x2')
    // Settled, the modal is back to how it was: closed.
    expect(store.getState().open).toBe(false)
    expect(store.getState().history).toEqual(['Connect'])
  })
})

describe('withApproval, two requests at once', () => {
  test('inv-17 the frame approves the later request first: closing the modal cancels the earlier one, not the approved one', async () => {
    // The frame shows a transaction only once its fees are filled, so a
    // message asked after it may be shown, and approved, first.
    const transaction = deferred()
    const message = deferred()
    const tx = withApproval('eth_sendTransaction', transaction.send)
    const signed = withApproval('personal_sign', message.send)
    message.approve()
    router.close()
    await expect(tx).rejects.toMatchObject({ code: ErrorCode.userRejected })
    expect(transaction.signal()?.aborted).toBe(true)
    expect(message.signal()?.aborted).toBe(false)
    message.resolve('0xsig')
    await expect(signed).resolves.toBe('0xsig')
  })

  test('inv-17 an approved event for an unknown request changes nothing', async () => {
    const request = deferred()
    const result = withApproval('personal_sign', request.send)
    markApproved({ approvalId: crypto.randomUUID() })
    router.close()
    await expect(result).rejects.toMatchObject({ code: ErrorCode.userRejected })
  })

  test('inv-06 the first settling leaves the second waiting on ApproveTransaction', async () => {
    const first = deferred()
    const second = deferred()
    const a = withApproval('personal_sign', first.send)
    const b = withApproval('eth_sendTransaction', second.send)
    expect(store.getState().history).toEqual(['ApproveTransaction'])
    first.resolve('0xa')
    await expect(a).resolves.toBe('0xa')
    expect(store.getState().open).toBe(true)
    expect(currentView(store.getState())).toBe('ApproveTransaction')
    expect(second.signal()?.aborted).toBe(false)
    second.resolve('0xb')
    await expect(b).resolves.toBe('0xb')
    expect(store.getState().open).toBe(false)
    expect(store.getState().approval).toBeNull()
  })

  test('inv-17 closing the modal cancels both', async () => {
    const first = deferred()
    const second = deferred()
    const a = withApproval('personal_sign', first.send)
    const b = withApproval('personal_sign', second.send)
    router.close()
    await expect(a).rejects.toMatchObject({ code: ErrorCode.userRejected })
    await expect(b).rejects.toMatchObject({ code: ErrorCode.userRejected })
    expect(store.getState().approval).toBeNull()
  })
})
