import { describe, expect, test } from 'vitest'
import { canClose, canGoBack, createRouter, UnsupportedViewError } from './router.js'
import { createStore, currentView, initialState, type WidgetState } from './store.js'

function setup(patch: Partial<WidgetState> = {}) {
  const store = createStore<WidgetState>({ ...initialState, ...patch })
  const changes: WidgetState[] = []
  store.subscribe(() => changes.push(store.getState()))
  return { store, router: createRouter(store), changes }
}

describe('createRouter', () => {
  test('navigate pushes a view; back returns to the previous one', () => {
    const { store, router } = setup()
    expect(canGoBack(store.getState())).toBe(false)
    router.navigate('AllWallets')
    expect(store.getState().history).toEqual(['Connect', 'AllWallets'])
    expect(currentView(store.getState())).toBe('AllWallets')
    expect(canGoBack(store.getState())).toBe(true)
    router.back()
    expect(store.getState().history).toEqual(['Connect'])
    expect(canGoBack(store.getState())).toBe(false)
  })

  test('back at the root and navigating to the current view change nothing', () => {
    const { router, changes } = setup()
    router.back()
    router.navigate('Connect')
    router.reset()
    expect(changes).toEqual([])
  })

  test('reset starts a new history at Connect, or at the view given', () => {
    const { store, router } = setup({ history: ['Connect', 'AllWallets'] })
    router.reset()
    expect(store.getState().history).toEqual(['Connect'])
    router.reset('AllWallets')
    expect(store.getState().history).toEqual(['AllWallets'])
    expect(canGoBack(store.getState())).toBe(false)
  })

  test('a view this build does not have throws 4200 and changes nothing', () => {
    const { store, router, changes } = setup()
    expect(() => router.navigate('RegisterAccountName')).toThrow(UnsupportedViewError)
    expect(() => router.open('RegisterAccountNameSuccess')).toThrow(
      expect.objectContaining({
        code: 4200,
        message: expect.stringContaining("'RegisterAccountNameSuccess'"),
      }),
    )
    expect(store.getState().open).toBe(false)
    expect(changes).toEqual([])
  })

  test('open shows the modal in one change; with a view, on a new history', () => {
    const { store, router, changes } = setup({ history: ['Connect', 'AllWallets'] })
    router.open()
    expect(changes).toHaveLength(1)
    expect(store.getState()).toMatchObject({ open: true, history: ['Connect', 'AllWallets'] })
    router.open('Connect')
    expect(store.getState().history).toEqual(['Connect'])
  })

  test('close hides the modal and resets to Connect in one change', () => {
    const { store, router, changes } = setup({ open: true, history: ['Connect', 'AllWallets'] })
    router.close()
    expect(changes).toHaveLength(1)
    expect(store.getState()).toMatchObject({ open: false, history: ['Connect'] })
  })
})

describe('canClose', () => {
  const connected = {
    status: 'connected',
    namespace: 'eip155',
    address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    chainId: 31337,
    connectorId: 'x',
    connectorName: 'X',
  } as const
  const session = { data: {}, message: 'm', signature: '0x' }

  test.each([
    ['Connect', null, null, true],
    ['UnsupportedChain', null, null, false],
    ['SIWXSignMessage', { required: false }, null, true],
    ['SIWXSignMessage', { required: true }, null, false],
    ['SIWXSignMessage', { required: true }, session, true],
    ['ApproveTransaction', { required: true }, null, false],
    ['Account', { required: true }, null, true],
  ] as const)('on %s with sign-in %j and session %j: %s', (view, siwx, current, expected) => {
    const { store, router } = setup({
      open: true,
      history: [view],
      connection: connected,
      siwx,
      session: current,
    })
    expect(canClose(store.getState())).toBe(expected)
    router.close()
    expect(store.getState().open).toBe(!expected)
  })
})
