// Used by the e2e security tests (SECURITY.md 1–3): a frame on another site,
// inside the same host page as the widget, that tries to talk to the widget.
// It posts a handshake carrying its own port, then envelopes, to every frame it
// can reach, and records whatever comes back on its port. Opened at top level
// it attacks nothing: it is then only a page on another site (SECURITY.md 4,
// nested framing, frames the demo host from it).
const received = []
const { port1, port2 } = new MessageChannel()
port1.onmessage = (event) => received.push(event.data)

const id = () => crypto.randomUUID()
// An attacker has no reason to name a target origin.
const anyOrigin = '*'
const framed = window.parent !== window
const targets = []
for (let index = 0; framed && index < window.parent.frames.length; index++) {
  const frame = window.parent.frames[index]
  if (frame !== window) targets.push(frame)
}

// A host wallet the attacker wants to drive through the loader's bridge (the
// test tells it the wallet's EIP-6963 uuid, as if it had guessed it).
const uuid = new URLSearchParams(location.search).get('uuid') ?? 'any'
const walletRequests = [
  {
    porthole: 1,
    kind: 'req',
    id: id(),
    method: 'hostWalletRequest',
    params: { uuid, method: 'eth_requestAccounts' },
  },
  {
    porthole: 1,
    kind: 'req',
    id: id(),
    method: 'hostWalletRequest',
    params: {
      uuid,
      method: 'personal_sign',
      params: ['0x6869', '0x0000000000000000000000000000000000000000'],
    },
  },
  {
    porthole: 1,
    kind: 'req',
    id: id(),
    method: 'providerRequest',
    params: { method: 'eth_requestAccounts' },
  },
]

let first = true
for (const target of targets) {
  const ports = first ? [port2] : []
  first = false
  target.postMessage(
    { porthole: 1, kind: 'hello', channel: 'porthole:host-widget' },
    anyOrigin,
    ports,
  )
  target.postMessage({ porthole: 1, kind: 'req', id: id(), method: 'open', params: {} }, anyOrigin)
  target.postMessage(
    { porthole: 1, kind: 'req', id: id(), method: 'setTheme', params: { theme: 'dark' } },
    anyOrigin,
  )
  target.postMessage({ porthole: 1, kind: 'evt', name: 'state', data: { open: true } }, anyOrigin)
  for (const request of walletRequests) target.postMessage(request, anyOrigin, [])
}
if (framed) {
  window.parent.postMessage(
    { porthole: 1, kind: 'evt', name: 'state', data: { open: true } },
    anyOrigin,
  )
  // The loader lives in the host window: ask it, too, to drive its wallets.
  for (const request of walletRequests) window.parent.postMessage(request, anyOrigin)
}

setTimeout(() => {
  const result = document.getElementById('result')
  if (result) result.textContent = JSON.stringify({ targets: targets.length, received })
}, 1500)
