// ConnectKit's host page: its default config (wagmi) and a Connect button opening its modal.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { ConnectKitProvider, getDefaultConfig, useModal } from 'connectkit'
import { useEffect, useState } from 'react'
import { createRoot } from 'react-dom/client'
import { createConfig, WagmiProvider } from 'wagmi'
import { mainnet } from 'wagmi/chains'
import { projectId } from './projectId.ts'

const config = createConfig(
  getDefaultConfig({
    appName: 'A host page',
    walletConnectProjectId: projectId,
    chains: [mainnet],
  }),
)
const queryClient = new QueryClient()

function Connect() {
  const { setOpen } = useModal()
  // As its own ConnectKitButton: usable once mounted (a click before is lost).
  const [mounted, setMounted] = useState(false)
  useEffect(() => setMounted(true), [])
  return (
    <button type="button" id="connect" disabled={!mounted} onClick={() => setOpen(true)}>
      Connect
    </button>
  )
}

createRoot(document.getElementById('root') as HTMLElement).render(
  <WagmiProvider config={config}>
    <QueryClientProvider client={queryClient}>
      <ConnectKitProvider>
        <main>
          <h1>A host page</h1>
          <Connect />
        </main>
      </ConnectKitProvider>
    </QueryClientProvider>
  </WagmiProvider>,
)
