import { describe, expect, test } from 'vitest'
import type { Api } from '../data/api.js'
import { getProjectConfig } from './projectConfig.js'

const features = {
  email: true,
  socials: ['google', 'x', 'farcaster', 'discord', 'apple', 'github', 'facebook'],
  onramp: true,
  swaps: false,
  history: true,
  analytics: false,
}

function configApi(body: unknown): Api {
  return {
    url: (path) => path,
    get: async () => body,
    getBlob: async () => new Blob(),
    post: async () => undefined,
    put: async () => undefined,
    delete: async () => undefined,
  }
}

const networks = ['eip155:31337', 'eip155:1']

describe('getProjectConfig', () => {
  test('reads the features and networks the API serves, Farcaster among the socials (SPEC 9 defaults)', async () => {
    await expect(getProjectConfig({ api: configApi({ features, networks }) })).resolves.toEqual({
      features,
      networks,
    })
  })

  test.each([
    ['an unknown social', { features: { ...features, socials: ['myspace'] }, networks }],
    ['an extra key', { features, networks, admin: true }],
    ['a missing feature', { features: { ...features, email: undefined }, networks }],
    ['no networks', { features, networks: [] }],
    ['a network that is not CAIP-2', { features, networks: ['mainnet'] }],
  ])('refuses %s', async (_, body) => {
    await expect(getProjectConfig({ api: configApi(body) })).rejects.toThrow()
  })
})
