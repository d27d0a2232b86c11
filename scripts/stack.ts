/** The dev stack's ports, origins and projects, shared by `npm start`, e2e and bench. */
export const ports = { demo: 5170, widget: 5171, secure: 5172, api: 5173, anvil: 8545 } as const

export const origins = {
  demo: `http://127.0.0.1:${ports.demo}`,
  /** The same demo host on another site, which the dev project does not allow. */
  evil: `http://evil.localhost:${ports.demo}`,
  widget: `http://widget.localhost:${ports.widget}`,
  secure: `http://secure.localhost:${ports.secure}`,
  api: `http://api.localhost:${ports.api}`,
} as const

export const projects = {
  dev: { id: 'porthole-dev' },
  e2e: [
    /** No allowed origins: only the dev defaults (localhost, 127.0.0.1, *.localhost) pass. */
    { id: 'porthole-e2e-open', name: 'E2E empty allow list', allowedOrigins: [] as string[] },
  ],
} as const
