/**
 * The demo's wagmi host (wagmi.html): a page built with wagmi and nothing of
 * Porthole's but the loader tag. wagmi's own EIP-6963 discovery finds
 * Porthole's provider (rdns `xyz.porthole`), its unchanged injected connector
 * connects through it, and transactions go out through it. Bundled by
 * `npm run build -w @porthole/demo`; e2e/wagmi-host.spec.ts drives it.
 */
import { type Address, defineChain, type Hex } from 'viem'
import { createConfig, http } from 'wagmi'
import {
  connect,
  getConnection,
  getConnectors,
  sendTransaction,
  switchChain,
  waitForTransactionReceipt,
  watchConnection,
} from 'wagmi/actions'

const anvilUrl = 'http://127.0.0.1:8545'

const chain = defineChain({
  id: 31337,
  name: 'Anvil',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: [anvilUrl] } },
})

/** In this site's wagmi config, but not among the dev project's networks (a site misconfigured so). */
const notOffered = defineChain({
  id: 10,
  name: 'OP Mainnet',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: ['https://mainnet.optimism.io'] } },
})

const config = createConfig({
  chains: [chain, notOffered],
  transports: { [chain.id]: http(anvilUrl), [notOffered.id]: http(anvilUrl) },
  multiInjectedProviderDiscovery: true,
})

const porthole = () => {
  const connector = getConnectors(config).find(({ id }) => id === 'xyz.porthole')
  if (!connector) throw new Error('wagmi has not discovered Porthole yet')
  return connector
}

declare global {
  interface Window {
    host: {
      connectors(): string[]
      connect(): Promise<readonly Address[]>
      send(to: Address, value: bigint): Promise<{ hash: Hex; status: string }>
      /** wagmi's switchChain; a failure as its error chain (name, code, message of each). */
      switchTo(chainId: number): Promise<{ name: string; code?: number; message: string }[] | null>
    }
  }
}

window.host = {
  connectors: () => getConnectors(config).map(({ id }) => id),
  connect: async () => (await connect(config, { connector: porthole() })).accounts,
  async send(to, value) {
    const hash = await sendTransaction(config, { to, value })
    const { status } = await waitForTransactionReceipt(config, { hash })
    return { hash, status }
  },
  async switchTo(chainId) {
    try {
      await switchChain(config, { chainId: chainId as 31337 | 10 })
      return null
    } catch (error) {
      const chain: { name: string; code?: number; message: string }[] = []
      for (let cause: unknown = error; cause instanceof Error; cause = cause.cause)
        chain.push({
          name: cause.name,
          code: (cause as { code?: number }).code,
          message: cause.message,
        })
      return chain
    }
  },
}

const stateView = document.getElementById('state') as HTMLElement
const connectButton = document.getElementById('connect') as HTMLButtonElement
const sendButton = document.getElementById('send') as HTMLButtonElement

const render = () => {
  const { status, address, chainId, connector } = getConnection(config)
  stateView.textContent = JSON.stringify(
    { status, address, chainId, connector: connector?.name, connectors: window.host.connectors() },
    null,
    2,
  )
  sendButton.disabled = status !== 'connected'
}

watchConnection(config, { onChange: render })
render()
setTimeout(render, 500)

connectButton.addEventListener('click', () => {
  window.host.connect().catch((error: Error) => {
    stateView.textContent = `connect failed: ${error.message}`
  })
})
sendButton.addEventListener('click', () => {
  const { address } = getConnection(config)
  if (!address) return
  window.host.send(address, 10n ** 16n).then(
    ({ hash, status }) => {
      stateView.textContent = `sent ${hash}: ${status}`
    },
    (error: Error) => {
      stateView.textContent = `send failed: ${error.message}`
    },
  )
})
