/**
 * The widget renders with Preact through its React compatibility layer: the
 * same components and libraries (TanStack Query, wagmi) at a tenth of
 * react-dom's size in the start-up JS (issue 14). Shared by the build
 * (vite.config.ts) and the component tests (vitest.config.ts), so the tests
 * run what ships.
 */
export const reactAliases = [
  { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
  { find: /^react-dom\/test-utils$/, replacement: 'preact/test-utils' },
  { find: /^react-dom$/, replacement: 'preact/compat' },
  { find: /^react\/jsx-runtime$/, replacement: 'preact/jsx-runtime' },
  { find: /^react\/jsx-dev-runtime$/, replacement: 'preact/jsx-dev-runtime' },
  { find: /^react$/, replacement: 'preact/compat' },
]
