// The same host page without the snippet: its Connect button does nothing.
import { createRoot } from 'react-dom/client'

function App() {
  return (
    <main>
      <h1>A host page</h1>
      <button type="button" id="connect">
        Connect
      </button>
    </main>
  )
}

createRoot(document.getElementById('root') as HTMLElement).render(<App />)
