// Porthole's host page: the snippet (in the HTML) and a Connect button that calls Wallet.open().
import { createRoot } from 'react-dom/client'

const wallet = () => (window as unknown as { Wallet?: { open(): Promise<void> } }).Wallet

function App() {
  return (
    <main>
      <h1>A host page</h1>
      <button type="button" id="connect" onClick={() => void wallet()?.open()}>
        Connect
      </button>
    </main>
  )
}

createRoot(document.getElementById('root') as HTMLElement).render(<App />)
