/**
 * A Wallet Standard wallet as a page registers one, for the loader's tests:
 * plain objects and functions, every feature call recorded, answers set by
 * the test. Not a signer: the bridge only relays bytes.
 */
import { vi } from 'vitest'

/** Two well-formed Solana addresses. */
export const address = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM'
export const otherAddress = '7S3P4HxJpyyigGzodYwHtCxZyUQe9JiBMHyRWXArAaKv'

type Listener = (properties: Record<string, unknown>) => void

export type FakeWallet = ReturnType<typeof createStandardWallet>

export function createStandardWallet(name = 'Test Solana', patch: Record<string, unknown> = {}) {
  const listeners = new Set<Listener>()
  const state = {
    accounts: [] as Array<Record<string, unknown>>,
  }
  const account = (address: string) => ({
    address,
    publicKey: new Uint8Array(32),
    chains: ['solana:localnet'],
    features: ['solana:signMessage'],
  })
  const features = {
    'standard:connect': {
      version: '1.0.0',
      connect: vi.fn(async () => {
        state.accounts = [account(address)]
        for (const listener of listeners) listener({ accounts: state.accounts })
        return { accounts: state.accounts }
      }),
    },
    'standard:disconnect': {
      version: '1.0.0',
      disconnect: vi.fn(async () => {
        state.accounts = []
      }),
    },
    'standard:events': {
      version: '1.0.0',
      on: vi.fn((event: string, listener: Listener) => {
        if (event === 'change') listeners.add(listener)
        return () => listeners.delete(listener)
      }),
    },
    'solana:signMessage': {
      version: '1.0.0',
      signMessage: vi.fn(async (...inputs: Array<{ message: Uint8Array }>) =>
        inputs.map(({ message }) => ({
          signedMessage: message,
          signature: new Uint8Array(64).fill(7),
        })),
      ),
    },
    'solana:signTransaction': {
      version: '1.0.0',
      supportedTransactionVersions: ['legacy', 0],
      signTransaction: vi.fn(async (...inputs: Array<{ transaction: Uint8Array }>) =>
        inputs.map(({ transaction }) => ({
          signedTransaction: Uint8Array.from([...transaction, 1]),
        })),
      ),
    },
    'solana:signAndSendTransaction': {
      version: '1.0.0',
      supportedTransactionVersions: ['legacy', 0],
      signAndSendTransaction: vi.fn(async (...inputs: unknown[]) =>
        inputs.map(() => ({ signature: new Uint8Array(64).fill(9) })),
      ),
    },
    'sui:signTransaction': { version: '1.0.0', signTransaction: vi.fn() },
  }
  const wallet = {
    version: '1.0.0',
    name,
    icon: 'data:image/svg+xml;base64,PHN2Zy8+',
    chains: ['solana:mainnet', 'solana:localnet'],
    features,
    get accounts() {
      return state.accounts
    },
    ...patch,
  }
  return {
    wallet,
    features,
    listeners,
    /** The wallet's accounts change, as when the user switches in it. */
    setAccounts(addresses: string[]) {
      state.accounts = addresses.map(account)
      for (const listener of listeners) listener({ accounts: state.accounts })
    },
  }
}

;(globalThis as Record<string, unknown>)['porthole:test-only'] = true
