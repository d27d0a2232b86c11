/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** The widget's origin: the only parent whose handshake the frame accepts. */
  readonly VITE_WIDGET_ORIGIN?: string
  /** The API as the browser sees it: the embedded wallet's calls and the RPC proxy. */
  readonly VITE_API_URL?: string
}

interface ImportMeta {
  readonly env: ImportMetaEnv
}
