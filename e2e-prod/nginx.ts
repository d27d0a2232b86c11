/**
 * nginx in front of the production profile: deploy/nginx/porthole.conf, the
 * file operators include, rendered with the test's names and addresses, in a
 * minimal main configuration of the test's own (a temp prefix, an access log
 * naming the replica that answered, and the host site the test visits).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export const nginxBin = '/usr/sbin/nginx'
const template = join(import.meta.dirname, '..', 'deploy', 'nginx', 'porthole.conf')

/** Replaces every `${NAME}` outside comments; a name left without a value is an error. */
export function renderTemplate(text: string, values: Record<string, string>): string {
  return text
    .split('\n')
    .map((line) =>
      line.trimStart().startsWith('#')
        ? line
        : line.replace(/\$\{([A-Z0-9_]+)\}/g, (_match, name: string) => {
            const value = values[name]
            if (value === undefined)
              throw new Error(`deploy/nginx/porthole.conf: no value for \${${name}}`)
            return value
          }),
    )
    .join('\n')
}

export type NginxOptions = {
  dir: string
  listen: string
  tls: { certFile: string; keyFile: string }
  widget: { host: string; root: string }
  secure: { host: string; upstream: string }
  api: { host: string; replicas: readonly string[] }
  /** The host site (not Porthole's): a static folder on its own name. */
  site: { host: string; root: string }
}

export type RunningNginx = {
  /** The access log: `<client address> <host> "<request>" <status> <replica>` per line. */
  accessLog(): string
  stop(): Promise<void>
}

export async function startNginx(options: NginxOptions): Promise<RunningNginx> {
  if (!existsSync(nginxBin))
    throw new Error(
      `nginx is missing (${nginxBin}): npm run test:prod installs it as root; otherwise sudo apt-get install -y nginx`,
    )
  const { dir } = options
  mkdirSync(join(dir, 'temp'), { recursive: true })
  const porthole = renderTemplate(readFileSync(template, 'utf8'), {
    LISTEN: options.listen,
    TLS_CERT: options.tls.certFile,
    TLS_KEY: options.tls.keyFile,
    WIDGET_HOST: options.widget.host,
    WIDGET_ROOT: options.widget.root,
    SECURE_HOST: options.secure.host,
    SECURE_FRAME: options.secure.upstream,
    API_HOST: options.api.host,
    API_REPLICAS: options.api.replicas.map((replica) => `server ${replica};`).join('\n    '),
  })
  writeFileSync(join(dir, 'porthole.conf'), porthole)
  const temp = join(dir, 'temp')
  writeFileSync(
    join(dir, 'nginx.conf'),
    `worker_processes 1;
error_log stderr warn;
pid ${join(dir, 'nginx.pid')};
events { worker_connections 512; }
http {
  types { text/html html; text/javascript js mjs; text/css css; application/json json; image/svg+xml svg; image/png png; font/woff2 woff2; }
  default_type application/octet-stream;
  log_format porthole '$remote_addr $host "$request" $status $upstream_addr';
  access_log ${join(dir, 'access.log')} porthole;
  client_body_temp_path ${temp}/body;
  proxy_temp_path ${temp}/proxy;
  fastcgi_temp_path ${temp}/fastcgi;
  uwsgi_temp_path ${temp}/uwsgi;
  scgi_temp_path ${temp}/scgi;
  include ${join(dir, 'porthole.conf')};
  # The visitor's site, which embeds Porthole: not part of a Porthole deployment.
  server {
    listen ${options.listen} ssl http2;
    server_name ${options.site.host};
    root ${options.site.root};
    add_header Cache-Control "no-cache" always;
  }
}
`,
  )
  const args = ['-p', dir, '-c', join(dir, 'nginx.conf')]
  try {
    execFileSync(nginxBin, ['-t', '-q', ...args], { stdio: 'pipe' })
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? String(error)
    throw new Error(`nginx refused the rendered configuration:\n${stderr}`)
  }
  const child: ChildProcess = spawn(nginxBin, [...args, '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  await new Promise((resolve) => setTimeout(resolve, 200))
  if (child.exitCode !== null) throw new Error(`nginx exited at start:\n${stderr}`)
  return {
    accessLog: () => {
      const file = join(dir, 'access.log')
      return existsSync(file) ? readFileSync(file, 'utf8') : ''
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGQUIT')
      await exited
    },
  }
}
