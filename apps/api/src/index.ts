export { type CreateAppOptions, createApp } from './app.js'
export { type CreateDbOptions, createDb, type Db, type Queryable } from './db/db.js'
export { migrate, migrations } from './db/migrations.js'
export { type Config, ConfigSchema, configFromEnv } from './http/config.js'
export {
  BaseError,
  ConfigError,
  DatabaseLockedError,
  HttpError,
  InvalidOriginError,
  ProjectError,
} from './http/errors.js'
export { isValidPattern, parseExactOrigin, parsePattern, parsePatterns } from './http/origins.js'
export { createProject, getProject, listProjects, setProjectOrigins } from './projects/projects.js'
export { seed } from './projects/seed.js'
