/**
 * The OAuth / OpenID Connect side of social login, with openid-client: the
 * authorization URL (PKCE S256, state, and a nonce for OIDC providers), the
 * code exchange, and the profile it proves (subject, email, whether the
 * provider verified that email).
 *
 * Each provider defaults to its public endpoints, as static metadata: nothing
 * is fetched at start-up. A provider configured with `issuer` and no
 * endpoints is discovered (OIDC discovery) on first use; a failed discovery is
 * tried again on the next use. Plain http is allowed only to loopback hosts
 * (a local stand-in), which the configuration already enforces.
 *
 * Google and Apple are OIDC: the ID token (from the token endpoint, over
 * TLS) carries the claims, completed by userinfo when it lacks the email.
 * GitHub, Discord, Facebook and X are plain OAuth 2: their user APIs give the
 * subject and, where they can say it is verified, the email.
 */
import * as client from 'openid-client'
import { z } from 'zod'
import type { OAuthProvider, SocialProviderSettings, SocialProviders } from '../../http/config.js'
import { OAuthProviderError, UnusableProviderAnswerError } from '../../http/errors.js'

/** Seconds an OAuth request to a provider may take. */
export const providerTimeoutSeconds = 10

/** What a provider proved about the person who signed in. */
export type SocialProfile = {
  /** The provider's stable user id (`sub`). */
  subject: string
  /** Lower-case; absent when the provider gave none or an unusable one. */
  email?: string
  /** Whether the provider says it verified `email`; only then may it link or set an account's email. */
  emailVerified: boolean
}

type ProfileReader = (api: {
  config: client.Configuration
  accessToken: string
  userinfoEndpoint: string | undefined
  idToken: client.IDToken | undefined
}) => Promise<SocialProfile>

type ProviderDefaults = {
  /** The provider's name as people know it. */
  label: string
  issuer: string
  authorizationEndpoint: string
  tokenEndpoint: string
  userinfoEndpoint: string
  jwksUri?: string
  scope: string
  /** How the client authenticates at the token endpoint. */
  tokenAuth: 'basic' | 'post'
  /** Extra authorization request parameters. */
  authorizationParams?: Record<string, string>
  readProfile: ProfileReader
}

const Email = z
  .email()
  .max(254)
  .transform((email) => email.toLowerCase())

/** The claims an OIDC provider signs: `sub`, `email`, `email_verified` (Apple's may be a string). */
const readOidcProfile: ProfileReader = async ({
  config,
  accessToken,
  userinfoEndpoint,
  idToken,
}) => {
  if (idToken === undefined)
    throw new UnusableProviderAnswerError('the token response holds no ID token')
  let claims: Record<string, unknown> = idToken
  if (claims.email === undefined && userinfoEndpoint !== undefined) {
    claims = { ...(await client.fetchUserInfo(config, accessToken, idToken.sub)), sub: idToken.sub }
  }
  return profile(
    idToken.sub,
    claims.email,
    claims.email_verified === true || claims.email_verified === 'true',
  )
}

/** GitHub: `GET /user` for the id, `GET /user/emails` for the primary address and whether it is verified. */
const readGithubProfile: ProfileReader = async ({ config, accessToken, userinfoEndpoint }) => {
  const endpoint = userinfoEndpoint ?? providerDefaults.github.userinfoEndpoint
  const headers = { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' }
  const user = z
    .object({ id: z.union([z.number(), z.string()]) })
    .parse(await getJson(config, accessToken, endpoint, headers))
  const emails = z
    .array(z.object({ email: z.string(), primary: z.boolean(), verified: z.boolean() }))
    .max(100)
    .safeParse(await getJson(config, accessToken, `${endpoint}/emails`, headers))
  const primary = emails.success ? emails.data.find((entry) => entry.primary) : undefined
  return profile(String(user.id), primary?.email, primary?.verified === true)
}

/** Discord: `GET /users/@me`, whose `verified` says whether the email is verified. */
const readDiscordProfile: ProfileReader = async ({ config, accessToken, userinfoEndpoint }) => {
  const user = z
    .object({ id: z.string(), email: z.string().nullish(), verified: z.boolean().optional() })
    .parse(
      await getJson(
        config,
        accessToken,
        userinfoEndpoint ?? providerDefaults.discord.userinfoEndpoint,
      ),
    )
  return profile(user.id, user.email, user.verified === true)
}

/** Facebook: `GET /me?fields=id,email`; Facebook does not say the email is verified, so it is not trusted. */
const readFacebookProfile: ProfileReader = async ({ config, accessToken, userinfoEndpoint }) => {
  const user = z
    .object({ id: z.string(), email: z.string().optional() })
    .parse(
      await getJson(
        config,
        accessToken,
        userinfoEndpoint ?? providerDefaults.facebook.userinfoEndpoint,
      ),
    )
  return profile(user.id, user.email, false)
}

/** X: `GET /2/users/me`; X gives no email here. */
const readXProfile: ProfileReader = async ({ config, accessToken, userinfoEndpoint }) => {
  const { data } = z
    .object({ data: z.object({ id: z.string() }) })
    .parse(
      await getJson(config, accessToken, userinfoEndpoint ?? providerDefaults.x.userinfoEndpoint),
    )
  return profile(data.id, undefined, false)
}

/**
 * The providers whose word that an email is verified is relied on
 * (SECURITY.md 23): only their verified emails may name a new account's
 * email, or find an existing account to link to (and then only once a code
 * mailed to that email confirms it; `auth/social/routes.ts`).
 *
 * - Google and Apple: `email_verified` is a claim of the signed ID token;
 *   both verify the address before they assert it.
 * - GitHub: the `verified` flag of the primary address (`GET /user/emails`),
 *   set only once GitHub's own confirmation mail was followed.
 * - Not Discord: its `verified` flag is about the account, and nothing
 *   documented says it follows a changed address; not Facebook, which says
 *   nothing about verification; not X, which gives no email.
 */
export const emailTrustedProviders: ReadonlySet<OAuthProvider> = new Set<OAuthProvider>([
  'google',
  'apple',
  'github',
])

/** The email `profile` proves, when its provider verified it and is trusted to; else undefined. */
export function trustedEmail(provider: OAuthProvider, profile: SocialProfile): string | undefined {
  return profile.emailVerified && emailTrustedProviders.has(provider) ? profile.email : undefined
}

/** Each provider's public endpoints and scopes (as documented by the provider). */
export const providerDefaults: Record<OAuthProvider, ProviderDefaults> = {
  google: {
    label: 'Google',
    issuer: 'https://accounts.google.com',
    authorizationEndpoint: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenEndpoint: 'https://oauth2.googleapis.com/token',
    userinfoEndpoint: 'https://openidconnect.googleapis.com/v1/userinfo',
    jwksUri: 'https://www.googleapis.com/oauth2/v3/certs',
    scope: 'openid email profile',
    tokenAuth: 'post',
    readProfile: readOidcProfile,
  },
  apple: {
    label: 'Apple',
    issuer: 'https://appleid.apple.com',
    authorizationEndpoint: 'https://appleid.apple.com/auth/authorize',
    tokenEndpoint: 'https://appleid.apple.com/auth/token',
    userinfoEndpoint: '',
    jwksUri: 'https://appleid.apple.com/auth/keys',
    scope: 'openid email',
    tokenAuth: 'post',
    // Apple posts the response back when the email scope is asked for.
    authorizationParams: { response_mode: 'form_post' },
    readProfile: readOidcProfile,
  },
  github: {
    label: 'GitHub',
    issuer: 'https://github.com',
    authorizationEndpoint: 'https://github.com/login/oauth/authorize',
    tokenEndpoint: 'https://github.com/login/oauth/access_token',
    userinfoEndpoint: 'https://api.github.com/user',
    scope: 'read:user user:email',
    tokenAuth: 'post',
    readProfile: readGithubProfile,
  },
  facebook: {
    label: 'Facebook',
    issuer: 'https://www.facebook.com',
    authorizationEndpoint: 'https://www.facebook.com/v21.0/dialog/oauth',
    tokenEndpoint: 'https://graph.facebook.com/v21.0/oauth/access_token',
    userinfoEndpoint: 'https://graph.facebook.com/v21.0/me?fields=id,email',
    scope: 'public_profile email',
    tokenAuth: 'post',
    readProfile: readFacebookProfile,
  },
  x: {
    label: 'X',
    issuer: 'https://x.com',
    authorizationEndpoint: 'https://x.com/i/oauth2/authorize',
    tokenEndpoint: 'https://api.x.com/2/oauth2/token',
    userinfoEndpoint: 'https://api.x.com/2/users/me',
    scope: 'users.read tweet.read',
    tokenAuth: 'basic',
    readProfile: readXProfile,
  },
  discord: {
    label: 'Discord',
    issuer: 'https://discord.com',
    authorizationEndpoint: 'https://discord.com/oauth2/authorize',
    tokenEndpoint: 'https://discord.com/api/oauth2/token',
    userinfoEndpoint: 'https://discord.com/api/users/@me',
    scope: 'identify email',
    tokenAuth: 'post',
    readProfile: readDiscordProfile,
  },
}

/** One configured provider. */
export type SocialClient = {
  readonly provider: OAuthProvider
  readonly label: string
  /** The URL to send the browser to; `nonce` is sent only to OIDC providers. */
  authorizationUrl(checks: { state: string; codeVerifier: string; nonce: string }): Promise<URL>
  /**
   * Redeems the code of a callback (`code`, `state`, `iss`), checking state,
   * PKCE and nonce, and reads the profile. Throws `OAuthProviderError`.
   */
  exchange(
    callback: { code: string; state: string; iss?: string | undefined },
    checks: { codeVerifier: string; nonce: string },
  ): Promise<SocialProfile>
}

export type CreateSocialClientsOptions = {
  providers: SocialProviders
  /** `<PUBLIC_API_URL>/auth/v1/social/callback`, registered at each provider. */
  redirectUri: string
  /** The fetch openid-client and the profile readers use; the global one by default. */
  fetch?: typeof fetch | undefined
}

/** A client per configured provider. */
export function createSocialClients({
  providers,
  redirectUri,
  fetch: customFetch,
}: CreateSocialClientsOptions): Map<OAuthProvider, SocialClient> {
  const clients = new Map<OAuthProvider, SocialClient>()
  for (const [provider, settings] of Object.entries(providers) as [
    OAuthProvider,
    SocialProviderSettings | undefined,
  ][]) {
    if (settings === undefined) continue
    clients.set(provider, createSocialClient(provider, settings, redirectUri, customFetch))
  }
  return clients
}

function createSocialClient(
  provider: OAuthProvider,
  settings: SocialProviderSettings,
  redirectUri: string,
  fetchFunction: typeof fetch | undefined,
): SocialClient {
  // openid-client's fetch type differs from the DOM's only in its body type.
  const customFetch = fetchFunction as client.CustomFetch | undefined
  const defaults = providerDefaults[provider]
  const discovered = settings.issuer !== undefined && settings.authorizationEndpoint === undefined
  const scope = settings.scope ?? (discovered ? 'openid email profile' : defaults.scope)
  const oidc = scope.split(' ').includes('openid')
  const userinfoEndpoint = discovered
    ? undefined
    : (settings.userinfoEndpoint ?? (defaults.userinfoEndpoint || undefined))
  const readProfile = oidc ? readOidcProfile : defaults.readProfile
  const urls = [
    settings.issuer,
    settings.authorizationEndpoint,
    settings.tokenEndpoint,
    settings.userinfoEndpoint,
  ]
  const insecure = urls.some((url) => url?.startsWith('http:'))
  const auth = clientAuth(settings, defaults)

  let configuration: Promise<client.Configuration> | undefined
  const configure = (): Promise<client.Configuration> => {
    configuration ??= makeConfiguration().catch((error: unknown) => {
      configuration = undefined
      throw providerError(defaults.label, 'discovery failed', error)
    })
    return configuration
  }
  const makeConfiguration = async () => {
    const config = discovered
      ? await client.discovery(
          new URL(settings.issuer ?? ''),
          settings.clientId,
          metadata(settings),
          auth,
          {
            execute: insecure ? [client.allowInsecureRequests] : [],
            timeout: providerTimeoutSeconds,
            ...(customFetch ? { [client.customFetch]: customFetch } : {}),
          },
        )
      : new client.Configuration(
          {
            issuer: settings.issuer ?? defaults.issuer,
            authorization_endpoint:
              settings.authorizationEndpoint ?? defaults.authorizationEndpoint,
            token_endpoint: settings.tokenEndpoint ?? defaults.tokenEndpoint,
            ...(userinfoEndpoint ? { userinfo_endpoint: userinfoEndpoint } : {}),
            ...(defaults.jwksUri && settings.issuer === undefined
              ? { jwks_uri: defaults.jwksUri }
              : {}),
          },
          settings.clientId,
          metadata(settings),
          auth,
        )
    if (!discovered && insecure) client.allowInsecureRequests(config)
    config.timeout = providerTimeoutSeconds
    if (customFetch) config[client.customFetch] = customFetch
    return config
  }

  return {
    provider,
    label: defaults.label,
    async authorizationUrl({ state, codeVerifier, nonce }) {
      const config = await configure()
      return client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope,
        state,
        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        ...(oidc ? { nonce } : {}),
        ...defaults.authorizationParams,
      })
    },
    async exchange(callback, { codeVerifier, nonce }) {
      const config = await configure()
      const current = new URL(redirectUri)
      current.searchParams.set('code', callback.code)
      current.searchParams.set('state', callback.state)
      if (callback.iss !== undefined) current.searchParams.set('iss', callback.iss)
      let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>
      try {
        tokens = await client.authorizationCodeGrant(config, current, {
          pkceCodeVerifier: codeVerifier,
          expectedState: callback.state,
          ...(oidc ? { expectedNonce: nonce, idTokenExpected: true } : {}),
        })
      } catch (error) {
        throw providerError(defaults.label, 'the code exchange failed', error)
      }
      try {
        return await readProfile({
          config,
          accessToken: tokens.access_token,
          userinfoEndpoint: discovered
            ? config.serverMetadata().userinfo_endpoint
            : userinfoEndpoint,
          idToken: tokens.claims(),
        })
      } catch (error) {
        throw providerError(defaults.label, 'reading the profile failed', error)
      }
    },
  }
}

function metadata(settings: SocialProviderSettings): Partial<client.ClientMetadata> | undefined {
  return settings.clientSecret === undefined ? undefined : { client_secret: settings.clientSecret }
}

function clientAuth(
  settings: SocialProviderSettings,
  defaults: ProviderDefaults,
): client.ClientAuth {
  if (settings.clientSecret === undefined) return client.None()
  return defaults.tokenAuth === 'basic'
    ? client.ClientSecretBasic(settings.clientSecret)
    : client.ClientSecretPost(settings.clientSecret)
}

async function getJson(
  config: client.Configuration,
  accessToken: string,
  url: string,
  headers: Record<string, string> = {},
): Promise<unknown> {
  const response = await client.fetchProtectedResource(
    config,
    accessToken,
    new URL(url),
    'GET',
    undefined,
    new Headers({ accept: 'application/json', ...headers }),
  )
  if (!response.ok)
    throw new UnusableProviderAnswerError(
      `${new URL(url).pathname} answered HTTP ${response.status}`,
    )
  return response.json()
}

function profile(subject: string, email: unknown, verified: boolean): SocialProfile {
  const parsed = Email.safeParse(email)
  if (subject === '' || subject.length > 255)
    throw new UnusableProviderAnswerError('the subject is empty or too long')
  return parsed.success
    ? { subject, email: parsed.data, emailVerified: verified }
    : { subject, emailVerified: false }
}

/**
 * An `OAuthProviderError` naming the provider, the step and the failure's
 * kind (its name, code and OAuth error code), never a token, a code or a
 * secret; the original is not kept as `cause`, so no log can print it.
 */
function providerError(label: string, step: string, error: unknown): OAuthProviderError {
  const {
    name,
    code,
    error: oauthError,
  } = (error ?? {}) as {
    name?: unknown
    code?: unknown
    error?: unknown
  }
  const kind = [name, code, oauthError]
    .filter((part): part is string => typeof part === 'string' && part.length < 80)
    .join(' ')
  return new OAuthProviderError(`${label}: ${step}${kind ? ` (${kind})` : ''}`)
}
