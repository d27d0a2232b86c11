// The floor for any cross-origin RPC: a bare MessagePort round trip between a
// page and a cross-site iframe (separate processes under site isolation).
const child = document.getElementById('child')
const childOrigin = new URL(location.href).searchParams.get('child')
child.src = `${childOrigin}/echo.html`

window.roundTrips = new Promise((resolve) => {
  child.addEventListener('load', async () => {
    const { port1, port2 } = new MessageChannel()
    child.contentWindow.postMessage('port', childOrigin, [port2])
    const once = () =>
      new Promise((done) => {
        port1.onmessage = () => done()
        port1.postMessage(0)
      })
    for (let index = 0; index < 50; index++) await once()
    const samples = []
    for (let index = 0; index < 500; index++) {
      const start = performance.now()
      await once()
      samples.push(performance.now() - start)
    }
    resolve(samples)
  })
})
