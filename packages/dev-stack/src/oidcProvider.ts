/**
 * A real OpenID Provider (`oidc-provider`) standing in for Google in tests.
 *
 * `createOidcProvider()` serves the authorization code flow on
 * http://127.0.0.1:<port> (a free port unless told): discovery, JWKS,
 * authorization, token and userinfo endpoints, ID tokens signed RS256 with a
 * key made at startup. Scopes openid, email and profile; the ID token itself
 * carries email, email_verified and name, as Google's does.
 *
 * Clients with a secret authenticate at the token endpoint with
 * client_secret_basic or client_secret_post (either one); PKCE (S256) is
 * optional for them and checked when the authorization request sent a
 * challenge. Clients without a secret are public: PKCE is required.
 *
 * There is no login page: the interaction endpoint signs in a configured
 * user and consents to what was asked, then redirects on, so a browser, or
 * fetch following redirects with the provider's cookies, ends on the
 * redirect_uri without any UI. The user is the one `login_hint` names (by sub
 * or email; an unknown hint ends the flow with `access_denied`, unless
 * `signUpByHint` makes a new user of an email hint), else the one
 * last given to `setNextUser()`, else the first configured. The stand-in keeps
 * no login session between authorization requests: each one signs in afresh,
 * so switching users needs no logout, and `prompt=none` always answers
 * `login_required`.
 */
import { createHash, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
// @ts-expect-error oidc-provider ships no types and @types/oidc-provider is not installed
import { Provider } from 'oidc-provider'

export type OidcClient = {
  clientId: string
  /** Omitted for a public client, which must then use PKCE. */
  clientSecret?: string
  redirectUris: string[]
}

export type OidcUser = {
  /** The stable subject identifier, a numeric string at Google. */
  sub: string
  email: string
  /** Defaults to true. */
  email_verified?: boolean
  name?: string
}

export type CreateOidcProviderOptions = {
  clients: OidcClient[]
  /** Defaults to `[defaultOidcUser]`. */
  users?: OidcUser[]
  /** Defaults to a free port. */
  port?: number
  /**
   * A `login_hint` that is an email no user has signs in a new user with that
   * email (verified) and a sub derived from it, the same one every time: a
   * test gets a fresh Google account by naming it. Off by default.
   */
  signUpByHint?: boolean
}

export type OidcStandIn = {
  /** `http://127.0.0.1:<port>`, also the `iss` of every token. */
  readonly issuer: string
  readonly port: number
  /** Signs in `sub` on every following authorization without a `login_hint`; throws for an unknown user. */
  setNextUser(sub: string): void
  /** Stops serving; resolves once the server has closed. */
  close(): Promise<void>
}

export const defaultOidcUser = {
  sub: '110248495921238986420',
  email: 'alice@example.com',
  email_verified: true,
  name: 'Alice Example',
} as const satisfies OidcUser

/** The parts of oidc-provider's API used here (it ships no types). */
type OidcProviderApi = {
  callback(): (req: IncomingMessage, res: ServerResponse) => void
  interactionDetails(
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<{ params: InteractionParams }>
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: InteractionResult,
    options: { mergeWithLastSubmission: boolean },
  ): Promise<void>
  Grant: new (init: {
    accountId: string
    clientId: string
  }) => {
    addOIDCScope(scope: string): void
    save(): Promise<string>
  }
  Client: { find(clientId: string): Promise<unknown> }
  cookieName(name: 'session'): string
}

type InteractionParams = { client_id: string; scope: string; login_hint?: string }

type InteractionResult =
  | { login: { accountId: string }; consent: { grantId: string } }
  | { error: string; error_description: string }

type ErrorContext = { type: string; body: string }

type Account = { accountId: string; claims(): Promise<Record<string, unknown>> }

const interactionPath = /^\/interaction\/[\w-]+$/

export async function createOidcProvider(options: CreateOidcProviderOptions): Promise<OidcStandIn> {
  const {
    clients,
    users: configuredUsers = [defaultOidcUser],
    port: wantedPort = 0,
    signUpByHint = false,
  } = options
  const users = [...configuredUsers]
  const usersBySub = new Map(users.map((user) => [user.sub, user]))
  if (usersBySub.size !== users.length) throw new Error('oidc stand-in: two users share a sub')
  const [firstUser] = users
  if (!firstUser) throw new Error('oidc stand-in: give at least one user')
  let nextUser: OidcUser = firstUser

  let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => {
    res.writeHead(503).end()
  }
  const server = createServer((req, res) => handle(req, res))
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(wantedPort, '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  const { port } = server.address() as AddressInfo
  const issuer = `http://127.0.0.1:${port}`

  let provider: OidcProviderApi
  try {
    provider = createProvider(issuer, clients, usersBySub)
    // oidc-provider checks client metadata when a client is first used: check it now.
    await Promise.all(
      clients.map((client) =>
        provider.Client.find(client.clientId).catch((cause: { error_description?: string }) => {
          throw new Error(
            `oidc stand-in: client ${client.clientId} refused: ${cause.error_description ?? cause}`,
            { cause },
          )
        }),
      ),
    )
  } catch (error) {
    server.close()
    throw error
  }
  const sessionCookie = provider.cookieName('session')
  const oidc = provider.callback()

  const interact = async (req: IncomingMessage, res: ServerResponse) => {
    const { params } = await provider.interactionDetails(req, res)
    const hint = params.login_hint
    const user =
      hint === undefined
        ? nextUser
        : (users.find((candidate) => candidate.sub === hint || candidate.email === hint) ??
          (signUpByHint ? signUp(hint) : undefined))
    if (!user) {
      await provider.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: `no test user matches login_hint ${hint}` },
        { mergeWithLastSubmission: false },
      )
      return
    }
    const grant = new provider.Grant({ accountId: user.sub, clientId: params.client_id })
    grant.addOIDCScope(params.scope)
    const grantId = await grant.save()
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: user.sub }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    )
  }

  /** A new verified user for an email hint (`signUpByHint`); undefined for anything else. */
  const signUp = (hint: string): OidcUser | undefined => {
    const email = hint.toLowerCase()
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) return undefined
    const known = users.find((candidate) => candidate.email === email)
    if (known) return known
    const digest = createHash('sha256').update(email).digest()
    const user = { sub: `9${digest.readBigUInt64BE(0)}`, email, email_verified: true }
    users.push(user)
    usersBySub.set(user.sub, user)
    return user
  }

  handle = (req, res) => {
    // Forget any login session the browser carries: every authorization signs in afresh.
    req.headers.cookie = withoutCookie(req.headers.cookie, sessionCookie)
    const { pathname } = new URL(req.url ?? '/', issuer)
    if (req.method !== 'GET' || !interactionPath.test(pathname)) return oidc(req, res)
    interact(req, res).catch((error: unknown) => {
      if (res.headersSent) return res.destroy()
      res
        .writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
        .end(`oidc stand-in interaction failed: ${error instanceof Error ? error.message : error}`)
    })
  }

  return {
    issuer,
    port,
    setNextUser(sub) {
      const user = usersBySub.get(sub)
      if (!user) throw new Error(`oidc stand-in: no user with sub ${sub}`)
      nextUser = user
    },
    close() {
      return new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()))
        server.closeAllConnections()
      })
    },
  }
}

/** oidc-provider configured as the Google stand-in, with a signing key made now. */
function createProvider(
  issuer: string,
  clients: OidcClient[],
  usersBySub: Map<string, OidcUser>,
): OidcProviderApi {
  const signingKey = {
    ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }),
    kid: randomUUID(),
    alg: 'RS256',
    use: 'sig',
  }

  return new Provider(issuer, {
    clients: clients.map((client) => ({
      client_id: client.clientId,
      redirect_uris: client.redirectUris,
      response_types: ['code'],
      grant_types: ['authorization_code'],
      ...(client.clientSecret === undefined
        ? { token_endpoint_auth_method: 'none' }
        : {
            client_secret: client.clientSecret,
            token_endpoint_auth_method: 'client_secret_basic',
          }),
    })),
    async findAccount(_ctx: unknown, sub: string): Promise<Account | undefined> {
      const user = usersBySub.get(sub)
      if (!user) return undefined
      return {
        accountId: user.sub,
        claims: async () => ({
          sub: user.sub,
          email: user.email,
          email_verified: user.email_verified ?? true,
          ...(user.name === undefined ? {} : { name: user.name }),
        }),
      }
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    scopes: ['openid', 'email', 'profile'],
    responseTypes: ['code'],
    // Google puts the scopes' claims in the ID token, not only behind userinfo.
    conformIdTokenClaims: false,
    allowOmittingSingleRegisteredRedirectUri: false,
    // A client registered with client_secret_basic may send client_secret_post too.
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    pkce: {
      required: (_ctx: unknown, client: { clientAuthMethod: string }) =>
        client.clientAuthMethod === 'none',
    },
    jwks: { keys: [signingKey] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    features: {
      devInteractions: { enabled: false },
      // Google has neither.
      pushedAuthorizationRequests: { enabled: false },
      rpInitiatedLogout: { enabled: false },
    },
    // Plain text rather than oidc-provider's HTML page, which it asks to be replaced.
    async renderError(ctx: ErrorContext, out: { error: string; error_description?: string }) {
      ctx.type = 'text/plain; charset=utf-8'
      ctx.body = out.error_description ? `${out.error}: ${out.error_description}` : out.error
    },
    interactions: {
      url: async (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}`,
    },
    ttl: {
      AccessToken: 3600,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 600,
      Session: 600,
      Grant: 600,
    },
  })
}

/** A Cookie header without `name` and its signature `name.sig`. */
function withoutCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined
  const kept = header
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => {
      const equals = pair.indexOf('=')
      const key = equals === -1 ? pair : pair.slice(0, equals)
      return key !== name && key !== `${name}.sig`
    })
  return kept.length > 0 ? kept.join('; ') : undefined
}
