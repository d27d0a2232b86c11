import { localChain } from '@porthole/chains/Evm'
import { describe, expect, test } from 'vitest'
import { createConfig, http } from 'wagmi'
import { connect, disconnect } from 'wagmi/actions'
import { mock } from 'wagmi/connectors'
import { walletConnectionStatus } from './connection.js'

const accounts = ['0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'] as const

function setup() {
  return createConfig({
    chains: [localChain],
    // wagmi's mock connector, twice, under two ids.
    connectors: [mock({ accounts }), (config) => ({ ...mock({ accounts })(config), id: 'mock-2' })],
    transports: { [localChain.id]: http('http://127.0.0.1:1') },
    storage: null,
    multiInjectedProviderDiscovery: false,
  })
}

describe('walletConnectionStatus', () => {
  test('connected for the active connection, active for another known one, disconnected otherwise', async () => {
    const config = setup()
    const [first, second] = config.connectors
    if (!first || !second) throw new Error('two connectors expected')
    expect(walletConnectionStatus(config, first.id)).toBe('disconnected')
    await connect(config, { connector: first })
    expect(walletConnectionStatus(config, first.id)).toBe('connected')
    await connect(config, { connector: second })
    expect(walletConnectionStatus(config, second.id)).toBe('connected')
    expect(walletConnectionStatus(config, first.id)).toBe('active')
    await disconnect(config, { connector: second })
    await disconnect(config, { connector: first })
    expect(walletConnectionStatus(config, first.id)).toBe('disconnected')
  })
})
