// RainbowKit's host page: its default config (wagmi) and a Connect button opening its modal.
import '@rainbow-me/rainbowkit/styles.css'
import { getDefaultConfig, RainbowKitProvider, useConnectModal } from '@rainbow-me/rainbowkit'
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { createRoot } from 'react-dom/client'
import { WagmiProvider } from 'wagmi'
import { mainnet } from 'wagmi/chains'
import { projectId } from './projectId.ts'

const config = getDefaultConfig({ appName: 'A host page', projectId, chains: [mainnet] })
const queryClient = new QueryClient()

function Connect() {
  const { openConnectModal } = useConnectModal()
  return (
    <button type="button" id="connect" disabled={!openConnectModal} onClick={openConnectModal}>
      Connect
    </button>
  )
}

createRoot(document.getElementById('root') as HTMLElement).render(
  <WagmiProvider config={config}>
    <QueryClientProvider client={queryClient}>
      <RainbowKitProvider>
        <main>
          <h1>A host page</h1>
          <Connect />
        </main>
      </RainbowKitProvider>
    </QueryClientProvider>
  </WagmiProvider>,
)
