import { describe, expect, test } from 'vitest'
import { configFromEnv, defaultPgliteDir, repoRoot } from './config.js'
import { ConfigError } from './errors.js'

describe('configFromEnv', () => {
  test('has working defaults', () => {
    expect(configFromEnv({})).toEqual({
      port: 5173,
      host: '127.0.0.1',
      databaseUrl: undefined,
      pgliteDir: defaultPgliteDir,
      corsOrigins: ['http://widget.localhost:5171', 'http://secure.localhost:5172'],
      rpcUpstreams: { 'eip155:31337': 'http://127.0.0.1:8545' },
      devProjectId: 'porthole-dev',
      seedDevProject: true,
    })
    expect(defaultPgliteDir).toBe(`${repoRoot}.data/pglite`)
  })

  test('reads every variable', () => {
    expect(
      configFromEnv({
        PORT: '8080',
        HOST: '0.0.0.0',
        DATABASE_URL: 'postgres://user:secret@db.example:5432/porthole',
        PGLITE_DIR: 'memory://',
        CORS_ORIGINS: 'https://widget.example.com, https://secure.example.com/',
        RPC_UPSTREAMS:
          '{"eip155:1":"https://rpc.example.com/key","solana:devnet":"http://127.0.0.1:8899"}',
        DEV_PROJECT_ID: 'my-dev',
        SEED_DEV_PROJECT: 'false',
      }),
    ).toEqual({
      port: 8080,
      host: '0.0.0.0',
      databaseUrl: 'postgres://user:secret@db.example:5432/porthole',
      pgliteDir: 'memory://',
      corsOrigins: ['https://widget.example.com', 'https://secure.example.com'],
      rpcUpstreams: {
        'eip155:1': 'https://rpc.example.com/key',
        'solana:devnet': 'http://127.0.0.1:8899',
      },
      devProjectId: 'my-dev',
      seedDevProject: false,
    })
  })

  test.each([
    [undefined, true],
    ['', true],
    ['true', true],
    ['false', false],
  ])('SEED_DEV_PROJECT=%j seeds the dev project: %s', (value, seedDevProject) => {
    expect(configFromEnv({ SEED_DEV_PROJECT: value }).seedDevProject).toBe(seedDevProject)
  })

  test('treats empty variables as unset', () => {
    expect(configFromEnv({ PORT: '', DATABASE_URL: '' })).toMatchObject({
      port: 5173,
      databaseUrl: undefined,
    })
  })

  test.each([
    [{ PORT: 'eighty' }, /PORT: must be a port number/],
    [{ PORT: '70000' }, /PORT: must be a port number/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL: must be a postgres/],
    [
      { CORS_ORIGINS: 'https://ok.example, not an origin' },
      /CORS_ORIGINS: must be a comma-separated/,
    ],
    [{ CORS_ORIGINS: 'https://a.example/path' }, /CORS_ORIGINS/],
    [{ RPC_UPSTREAMS: '{nope' }, /RPC_UPSTREAMS: must be a JSON object/],
    [{ RPC_UPSTREAMS: '["http://a"]' }, /RPC_UPSTREAMS/],
    [{ RPC_UPSTREAMS: '{"mainnet":"http://a.example"}' }, /RPC_UPSTREAMS/],
    [{ RPC_UPSTREAMS: '{"eip155:1":"ftp://a.example"}' }, /RPC_UPSTREAMS \(at eip155:1\)/],
    [{ DEV_PROJECT_ID: 'has space' }, /DEV_PROJECT_ID/],
    [{ SEED_DEV_PROJECT: 'no' }, /SEED_DEV_PROJECT: must be true or false/],
    [{ SEED_DEV_PROJECT: 'FALSE' }, /SEED_DEV_PROJECT: must be true or false/],
  ])('refuses %j, naming the variable', (env, message) => {
    expect(() => configFromEnv(env)).toThrow(ConfigError)
    expect(() => configFromEnv(env)).toThrow(message)
  })

  test('never echoes a value that may hold a secret', () => {
    const secret = 'sup3r-s3cret-key'
    for (const env of [
      { DATABASE_URL: `mysql://root:${secret}@db` },
      { RPC_UPSTREAMS: `{"eip155:1":"ftp://x/${secret}"}` },
      { RPC_UPSTREAMS: `{bad json ${secret}` },
    ]) {
      expect(() => configFromEnv(env)).toThrow(ConfigError)
      try {
        configFromEnv(env)
      } catch (error) {
        expect((error as Error).message).not.toContain(secret)
      }
    }
  })

  test('names every bad variable at once', () => {
    expect(() => configFromEnv({ PORT: 'x', DEV_PROJECT_ID: '!' })).toThrow(
      /PORT: .*; DEV_PROJECT_ID: /,
    )
  })
})
