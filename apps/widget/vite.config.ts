import { fileURLToPath } from 'node:url'
import tailwindcss from '@tailwindcss/vite'
import react from '@vitejs/plugin-react'
import { defineConfig, loadEnv, type Plugin } from 'vite'
import { defaultApiUrl, defaultSecureFrameUrl, parseUrlSetting } from './src/lib/defaults.js'

/**
 * A Content-Security-Policy for the built page: scripts and styles from the
 * widget origin only, calls and images to the API only, frames from the
 * secure origin only. (`frame-ancestors` cannot be set by a meta tag; the
 * widget may be framed anywhere and checks its host itself.)
 */
function contentSecurityPolicy(apiUrl: string, secureFrameUrl: string): Plugin {
  const api = new URL(apiUrl).origin
  const secure = new URL(secureFrameUrl).origin
  const policy = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' ${api} data: blob:`,
    `connect-src 'self' ${api}`,
    `frame-src ${secure}`,
    "base-uri 'none'",
    "form-action 'none'",
    "object-src 'none'",
  ].join('; ')
  return {
    name: 'porthole-csp',
    apply: 'build',
    transformIndexHtml: () => [
      {
        tag: 'meta',
        attrs: { 'http-equiv': 'Content-Security-Policy', content: policy },
        injectTo: 'head-prepend',
      },
    ],
  }
}

export default defineConfig(({ mode }) => {
  const env = {
    ...loadEnv(mode, fileURLToPath(new URL('.', import.meta.url)), 'VITE_'),
    ...process.env,
  }
  const apiUrl = parseUrlSetting('VITE_API_URL', env.VITE_API_URL, defaultApiUrl)
  const secureFrameUrl = parseUrlSetting(
    'VITE_SECURE_FRAME_URL',
    env.VITE_SECURE_FRAME_URL,
    defaultSecureFrameUrl,
  )
  return {
    plugins: [react(), tailwindcss(), contentSecurityPolicy(apiUrl, secureFrameUrl)],
    define: {
      'import.meta.env.VITE_API_URL': JSON.stringify(apiUrl),
      'import.meta.env.VITE_SECURE_FRAME_URL': JSON.stringify(secureFrameUrl),
    },
    build: {
      manifest: true,
      target: 'es2022',
      // No source maps ship (SECURITY.md 18): they would publish the sources, tests included.
      sourcemap: false,
    },
    server: { port: 5171, strictPort: true },
    preview: { port: 5171, strictPort: true },
  }
})
