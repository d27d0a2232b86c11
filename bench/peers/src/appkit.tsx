// Reown AppKit's host page: its wagmi adapter and a Connect button opening its modal.

import { mainnet } from '@reown/appkit/networks'
import { createAppKit, useAppKit } from '@reown/appkit/react'
import { WagmiAdapter } from '@reown/appkit-adapter-wagmi'
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { createRoot } from 'react-dom/client'
import { WagmiProvider } from 'wagmi'
import { projectId } from './projectId.ts'

const wagmiAdapter = new WagmiAdapter({ networks: [mainnet], projectId })
createAppKit({
  adapters: [wagmiAdapter],
  networks: [mainnet],
  projectId,
  metadata: {
    name: 'A host page',
    description: 'A host page',
    url: location.origin,
    icons: [],
  },
})
const queryClient = new QueryClient()

function Connect() {
  const { open } = useAppKit()
  return (
    <button type="button" id="connect" onClick={() => void open()}>
      Connect
    </button>
  )
}

createRoot(document.getElementById('root') as HTMLElement).render(
  <WagmiProvider config={wagmiAdapter.wagmiConfig}>
    <QueryClientProvider client={queryClient}>
      <main>
        <h1>A host page</h1>
        <Connect />
      </main>
    </QueryClientProvider>
  </WagmiProvider>,
)
