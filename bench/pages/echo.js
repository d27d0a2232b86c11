window.addEventListener('message', (event) => {
  const [port] = event.ports
  if (event.source !== window.parent || !port) return
  port.onmessage = (message) => port.postMessage(message.data)
})
