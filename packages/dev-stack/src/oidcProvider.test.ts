import { createHash, randomBytes } from 'node:crypto'
import { createRemoteJWKSet, jwtVerify } from 'jose'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createOidcProvider, defaultOidcUser, type OidcStandIn } from './oidcProvider.ts'

/** Never fetched: the tests read the code from the Location header. */
const redirectUri = 'http://127.0.0.1:1/auth/google/callback'
const confidential = {
  clientId: 'porthole-api',
  clientSecret: 'api-secret',
  redirectUris: [redirectUri],
}
const publicClient = { clientId: 'porthole-public', redirectUris: [redirectUri] }
const bob = { sub: '104729451982374651020', email: 'bob@example.com', name: 'Bob Example' }

let op: OidcStandIn

beforeAll(async () => {
  op = await createOidcProvider({
    clients: [confidential, publicClient],
    users: [defaultOidcUser, bob],
  })
})

afterAll(async () => {
  await op?.close()
})

type Discovery = {
  issuer: string
  authorization_endpoint: string
  token_endpoint: string
  jwks_uri: string
  code_challenge_methods_supported: string[]
  scopes_supported: string[]
}

type TokenResponse = { id_token?: string; access_token?: string; error?: string }

async function discover(): Promise<Discovery> {
  const response = await fetch(`${op.issuer}/.well-known/openid-configuration`)
  expect(response.status).toBe(200)
  return (await response.json()) as Discovery
}

function pkce() {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}

/**
 * Sends the browser to the authorization endpoint and follows the provider's
 * redirects, with its cookies, to the first one that leaves the provider.
 */
async function authorize(
  params: Record<string, string>,
  cookies = new Map<string, string>(),
): Promise<URL> {
  const { authorization_endpoint } = await discover()
  let url = new URL(authorization_endpoint)
  url.search = new URLSearchParams({
    response_type: 'code',
    scope: 'openid email profile',
    redirect_uri: redirectUri,
    ...params,
  }).toString()
  for (let hops = 0; url.origin === op.issuer; hops++) {
    if (hops === 10) throw new Error(`no way out of the provider after ${url}`)
    const cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join('; ')
    const response = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} })
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';')
      const equals = pair.indexOf('=')
      cookies.set(pair.slice(0, equals), pair.slice(equals + 1))
    }
    const location = response.headers.get('location')
    if (response.status !== 303 || location === null)
      throw new Error(`${url} answered ${response.status}: ${await response.text()}`)
    url = new URL(location, url)
  }
  return url
}

async function redeem(
  code: string,
  options: { verifier?: string; auth?: 'basic' | 'post' | 'none'; secret?: string } = {},
) {
  const { verifier, auth = 'post', secret = confidential.clientSecret } = options
  const { token_endpoint } = await discover()
  const clientId = auth === 'none' ? publicClient.clientId : confidential.clientId
  const body = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
  })
  if (verifier !== undefined) body.set('code_verifier', verifier)
  const headers: Record<string, string> = {}
  if (auth === 'basic')
    headers.authorization = `Basic ${btoa(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`)}`
  else body.set('client_id', clientId)
  if (auth === 'post') body.set('client_secret', secret)
  const response = await fetch(token_endpoint, { method: 'POST', headers, body })
  return { status: response.status, body: (await response.json()) as TokenResponse }
}

/** A code for the confidential client, with the PKCE verifier that redeems it. */
async function codeFor(params: Record<string, string> = {}, cookies?: Map<string, string>) {
  const { verifier, challenge } = pkce()
  const callback = await authorize(
    {
      client_id: confidential.clientId,
      state: 'state-1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      ...params,
    },
    cookies,
  )
  const code = callback.searchParams.get('code')
  if (code === null) throw new Error(`no code in ${callback}`)
  return { code, verifier }
}

async function verifyIdToken(idToken: string | undefined, audience = confidential.clientId) {
  if (idToken === undefined) throw new Error('no id_token in the token response')
  const { jwks_uri } = await discover()
  const { payload, protectedHeader } = await jwtVerify(
    idToken,
    createRemoteJWKSet(new URL(jwks_uri)),
    {
      issuer: op.issuer,
      audience,
    },
  )
  return { payload, protectedHeader }
}

/** The verified ID token claims of a whole flow for the confidential client. */
async function signedInAs(params: Record<string, string> = {}, cookies?: Map<string, string>) {
  const { code, verifier } = await codeFor(params, cookies)
  const { body } = await redeem(code, { verifier })
  return (await verifyIdToken(body.id_token)).payload
}

describe('createOidcProvider', () => {
  test('publishes a discovery document with its authorization, token and JWKS endpoints', async () => {
    const discovery = await discover()
    expect(op.issuer).toBe(`http://127.0.0.1:${op.port}`)
    expect(discovery).toMatchObject({
      issuer: op.issuer,
      authorization_endpoint: `${op.issuer}/auth`,
      token_endpoint: `${op.issuer}/token`,
      jwks_uri: `${op.issuer}/jwks`,
      code_challenge_methods_supported: ['S256'],
    })
    expect(discovery.scopes_supported).toEqual(
      expect.arrayContaining(['openid', 'email', 'profile']),
    )

    const { keys } = (await (await fetch(discovery.jwks_uri)).json()) as { keys: JsonWebKey[] }
    expect(keys).toHaveLength(1)
    expect(keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' })
    // Only the public half is published.
    expect(keys[0]).not.toHaveProperty('d')
  })

  test('completes a PKCE code flow without UI, giving an ID token the JWKS verifies', async () => {
    const { verifier, challenge } = pkce()
    const callback = await authorize({
      client_id: confidential.clientId,
      state: 'state-42',
      nonce: 'nonce-42',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    })
    expect(`${callback.origin}${callback.pathname}`).toBe(redirectUri)
    expect(callback.searchParams.get('state')).toBe('state-42')
    expect(callback.searchParams.get('iss')).toBe(op.issuer)
    const code = callback.searchParams.get('code')
    expect(code).toEqual(expect.any(String))

    const tokens = await redeem(code ?? '', { verifier })
    expect(tokens.status).toBe(200)
    expect(tokens.body.access_token).toEqual(expect.any(String))
    const { payload, protectedHeader } = await verifyIdToken(tokens.body.id_token)
    expect(protectedHeader.alg).toBe('RS256')
    expect(payload).toMatchObject({
      iss: op.issuer,
      aud: confidential.clientId,
      nonce: 'nonce-42',
      sub: defaultOidcUser.sub,
      email: defaultOidcUser.email,
      email_verified: true,
      name: defaultOidcUser.name,
    })
  })

  test.each(['basic', 'post'] as const)(
    'lets the confidential client authenticate with client_secret_%s',
    async (auth) => {
      const { code, verifier } = await codeFor()
      expect((await redeem(code, { verifier, auth })).status).toBe(200)
    },
  )

  test('refuses a wrong client secret', async () => {
    const { code, verifier } = await codeFor()
    const tokens = await redeem(code, { verifier, secret: 'not-the-secret' })
    expect(tokens).toEqual({
      status: 401,
      body: expect.objectContaining({ error: 'invalid_client' }),
    })
  })

  test('refuses a redirect_uri the client did not register, without redirecting to it', async () => {
    const { authorization_endpoint } = await discover()
    const url = new URL(authorization_endpoint)
    url.search = new URLSearchParams({
      client_id: confidential.clientId,
      response_type: 'code',
      scope: 'openid email',
      redirect_uri: 'http://127.0.0.1:1/elsewhere',
      state: 'state-1',
    }).toString()
    const response = await fetch(url, { redirect: 'manual' })
    expect(response.status).toBe(400)
    expect(response.headers.get('location')).toBeNull()
    expect(await response.text()).toMatch(/redirect_uri did not match/)
  })

  test('refuses a code_verifier that does not match the challenge', async () => {
    const { code } = await codeFor()
    const tokens = await redeem(code, { verifier: pkce().verifier })
    expect(tokens).toEqual({
      status: 400,
      body: expect.objectContaining({ error: 'invalid_grant' }),
    })
  })

  test('refuses a code redeemed a second time', async () => {
    const { code, verifier } = await codeFor()
    expect((await redeem(code, { verifier })).status).toBe(200)
    const again = await redeem(code, { verifier })
    expect(again).toEqual({
      status: 400,
      body: expect.objectContaining({ error: 'invalid_grant' }),
    })
  })

  test('requires PKCE of a public client, and redeems its code without a secret', async () => {
    const refused = await authorize({ client_id: publicClient.clientId, state: 'state-1' })
    expect(refused.searchParams.get('error')).toBe('invalid_request')
    expect(refused.searchParams.get('error_description')).toMatch(/PKCE/)
    expect(refused.searchParams.get('code')).toBeNull()

    const { verifier, challenge } = pkce()
    const callback = await authorize({
      client_id: publicClient.clientId,
      state: 'state-1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    })
    const tokens = await redeem(callback.searchParams.get('code') ?? '', { verifier, auth: 'none' })
    expect(tokens.status).toBe(200)
    const { payload } = await verifyIdToken(tokens.body.id_token, publicClient.clientId)
    expect(payload.aud).toBe(publicClient.clientId)
  })

  test('signs in the user login_hint names, else the one setNextUser chose', async () => {
    op.setNextUser(bob.sub)
    try {
      expect(await signedInAs()).toMatchObject({
        sub: bob.sub,
        email: bob.email,
        email_verified: true,
      })
      expect(await signedInAs()).toMatchObject({ sub: bob.sub })
      expect(await signedInAs({ login_hint: defaultOidcUser.email })).toMatchObject({
        sub: defaultOidcUser.sub,
      })
      expect(await signedInAs({ login_hint: defaultOidcUser.sub })).toMatchObject({
        sub: defaultOidcUser.sub,
      })
    } finally {
      op.setNextUser(defaultOidcUser.sub)
    }
    expect(() => op.setNextUser('nobody')).toThrow(/no user with sub nobody/)
  })

  test('signs in afresh on every authorization, whatever login session the browser carries', async () => {
    const cookies = new Map<string, string>()
    expect(await signedInAs({}, cookies)).toMatchObject({ sub: defaultOidcUser.sub })
    // The provider did set a login session cookie; the stand-in ignores it.
    expect(cookies.get('_session')).toEqual(expect.any(String))

    op.setNextUser(bob.sub)
    try {
      expect(await signedInAs({}, cookies)).toMatchObject({ sub: bob.sub })
    } finally {
      op.setNextUser(defaultOidcUser.sub)
    }
  })

  test('ends the flow with access_denied when login_hint names no user', async () => {
    const callback = await authorize({
      client_id: confidential.clientId,
      state: 'state-7',
      login_hint: 'mallory@example.com',
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    })
    expect(callback.searchParams.get('error')).toBe('access_denied')
    expect(callback.searchParams.get('state')).toBe('state-7')
    expect(callback.searchParams.get('code')).toBeNull()
  })

  test('with signUpByHint, an email hint no user has signs in a new verified user, the same each time', async () => {
    const shared = op
    op = await createOidcProvider({ clients: [confidential], signUpByHint: true })
    try {
      const first = await signedInAs({ login_hint: 'Zed@Example.com' })
      expect(first).toMatchObject({
        sub: expect.stringMatching(/^9\d+$/),
        email: 'zed@example.com',
        email_verified: true,
      })
      expect((await signedInAs({ login_hint: 'zed@example.com' })).sub).toBe(first.sub)
      expect((await signedInAs({ login_hint: 'yan@example.com' })).sub).not.toBe(first.sub)
      // Anything but an email is still no one.
      const callback = await authorize({
        client_id: confidential.clientId,
        state: 'state-8',
        login_hint: 'mallory',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      })
      expect(callback.searchParams.get('error')).toBe('access_denied')
    } finally {
      await op.close()
      op = shared
    }
  })

  test('refuses at startup a client that oidc-provider would refuse at its first request', async () => {
    await expect(
      createOidcProvider({ clients: [{ ...confidential, redirectUris: ['not a url'] }] }),
    ).rejects.toThrow(/client porthole-api refused: redirect_uris must only contain valid uris/)
  })

  test('stops serving once closed', async () => {
    const other = await createOidcProvider({ clients: [confidential] })
    const url = `${other.issuer}/.well-known/openid-configuration`
    expect((await fetch(url)).status).toBe(200)
    await other.close()
    await expect(fetch(url)).rejects.toThrow()
  })
})
