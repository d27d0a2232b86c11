export { type CreateAppOptions, createApp } from './app.js'
export { type Config, ConfigSchema, configFromEnv } from './config.js'
export { type CreateDbOptions, createDb, type Db, type Queryable } from './db/db.js'
export { migrate, migrations } from './db/migrations.js'
export { seed } from './db/seed.js'
export {
  BaseError,
  ConfigError,
  DatabaseLockedError,
  HttpError,
  InvalidOriginError,
  ProjectError,
} from './errors.js'
export { isValidPattern, parseExactOrigin, parsePattern, parsePatterns } from './origins.js'
export { createProject, getProject, listProjects, setProjectOrigins } from './projects.js'
