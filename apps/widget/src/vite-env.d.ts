/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** The API's base URL; set at build time, never taken from the host. */
  readonly VITE_API_URL?: string
  /** The secure frame's base URL. */
  readonly VITE_SECURE_FRAME_URL?: string
}

interface ImportMeta {
  readonly env: ImportMetaEnv
}
