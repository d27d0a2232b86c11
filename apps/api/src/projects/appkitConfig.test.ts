import * as Api from '@porthole/protocol/Api'
import type { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createTestDb, seededDevProject, type TestDb } from '../../test/db.js'
import { createApp } from '../app.js'
import { createProject, setProjectNetworks } from './projects.js'

/** A project's own features and networks, as created and as served. */
const withFeatures: Api.ProjectConfig = {
  features: {
    email: true,
    socials: ['google', 'github'],
    onramp: true,
    swaps: false,
    history: true,
    analytics: false,
  },
  networks: ['eip155:8453', 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'],
}

let testDb: TestDb
let app: Hono

beforeAll(async () => {
  testDb = await createTestDb()
  app = createApp({ config: testDb.config, db: testDb.db })
  await createProject(testDb.db, { id: 'with-features', name: 'Features on', ...withFeatures })
  await createProject(testDb.db, { id: 'plain', name: 'Defaults' })
})
afterAll(() => testDb?.close())

describe('GET /appkit/v1/config', () => {
  test('serves the dev project features and networks, the local chain first', async () => {
    const response = await app.request('/appkit/v1/config?projectId=porthole-dev&clientId=abc')
    expect(response.status).toBe(200)
    expect(Api.ProjectConfig.parse(await response.json())).toEqual({
      ...seededDevProject,
      // The test config's one upstream is the local chain's.
      networksWithoutRpc: seededDevProject.networks.filter((id) => id !== 'eip155:31337'),
      // The dev project has history on; the test config indexes the local chain.
      networksWithHistory: ['eip155:31337'],
    })
  })

  test('names the networks without an RPC upstream, from RPC_UPSTREAMS', async () => {
    const upstreams = createApp({
      config: { ...testDb.config, rpcUpstreams: { 'eip155:8453': 'https://base.example' } },
      db: testDb.db,
    })
    const response = await upstreams.request('/appkit/v1/config?projectId=with-features')
    expect(Api.ProjectConfig.parse(await response.json()).networksWithoutRpc).toEqual([
      'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
    ])
  })

  test("serves each project's own features and networks", async () => {
    const response = await app.request('/appkit/v1/config?projectId=with-features')
    const body = await response.json()
    expect(Api.ProjectConfig.parse(body)).toEqual(body)
    expect(body).toEqual({
      ...withFeatures,
      networksWithoutRpc: withFeatures.networks,
      networksWithHistory: [],
    })
  })

  test('serves Api.defaultNetworks for a project created without networks', async () => {
    const response = await app.request('/appkit/v1/config?projectId=plain')
    const body = Api.ProjectConfig.parse(await response.json())
    expect(body.networks).toEqual([...Api.defaultNetworks])
    expect(body.networks).toEqual(['eip155:1'])
  })

  test('serves the networks as set, at once', async () => {
    await setProjectNetworks(testDb.db, 'plain', ['solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'])
    const response = await app.request('/appkit/v1/config?projectId=plain')
    expect(Api.ProjectConfig.parse(await response.json()).networks).toEqual([
      'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    ])
  })

  test('never serves a stored network the widget would refuse', async () => {
    await testDb.db.query(
      `INSERT INTO projects (id, name, features, networks)
       VALUES ('stale', 'Stale', '{}'::jsonb, '["eip155:999", "eip155:10"]'::jsonb),
              ('gone', 'Gone', '{}'::jsonb, '["bip122:000000000019d6689c085ae165831e93"]'::jsonb)`,
    )
    const stale = await app.request('/appkit/v1/config?projectId=stale')
    expect(Api.ProjectConfig.parse(await stale.json()).networks).toEqual(['eip155:10'])
    const gone = await app.request('/appkit/v1/config?projectId=gone')
    expect(Api.ProjectConfig.parse(await gone.json()).networks).toEqual(['eip155:1'])
  })

  test('refuses unknown query parameters', async () => {
    const response = await app.request('/appkit/v1/config?projectId=porthole-dev&debug=1')
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({
      error: { code: 'invalid_query', message: 'Invalid query: Unrecognized key: "debug"' },
    })
  })
})
