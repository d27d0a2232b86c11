/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** The API's base URL; set at build time, never taken from the host. */
  readonly VITE_API_URL?: string
  /** The secure frame's base URL. */
  readonly VITE_SECURE_FRAME_URL?: string
  /** The WalletConnect relay's WebSocket URL. */
  readonly VITE_WALLETCONNECT_RELAY_URL?: string
  /** The WalletConnect Cloud project id. */
  readonly VITE_WALLETCONNECT_PROJECT_ID?: string
}

interface ImportMeta {
  readonly env: ImportMetaEnv
}
