// The demo host's own code: it uses only the public Wallet API.
const stateView = document.getElementById('state')
const connectButton = document.getElementById('connect')
const themeSelect = document.getElementById('theme')

const wallet = () =>
  window.Wallet && typeof window.Wallet.getState === 'function'
    ? Promise.resolve(window.Wallet)
    : new Promise((resolve) =>
        window.addEventListener('porthole:ready', () => resolve(window.Wallet), { once: true }),
      )

const render = (state) => {
  stateView.textContent = JSON.stringify(state, null, 2)
}

void wallet().then((Wallet) => {
  render(Wallet.getState())
  Wallet.subscribe(render)
  connectButton.addEventListener('click', () => {
    Wallet.open().catch((error) => {
      stateView.textContent = `Wallet.open() failed: ${error.message}`
    })
  })
  themeSelect.addEventListener('change', () => Wallet.setTheme(themeSelect.value))
})
