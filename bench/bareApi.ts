/**
 * The floor of `bench/api.ts`: a bare Hono handler on Node answering each
 * path with the JSON the API gave for it (`c.json`, built per request), no
 * middleware, no database. Run as a child process: `tsx bench/bareApi.ts
 * <bodies.json>`, where the file maps each path to its body; prints
 * `listening on <url>`.
 */
import { readFileSync } from 'node:fs'
import { serve } from '@hono/node-server'
import { Hono } from 'hono'

const file = process.argv[2]
if (file === undefined) throw new Error('usage: tsx bench/bareApi.ts <bodies.json>')
const bodies = JSON.parse(readFileSync(file, 'utf8')) as Record<string, object>
const app = new Hono()
for (const [path, body] of Object.entries(bodies)) app.get(path, (c) => c.json(body))
serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  console.log(`listening on http://127.0.0.1:${info.port}`)
})
process.on('SIGTERM', () => process.exit(0))
