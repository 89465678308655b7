// The service's version, from package.json: the health route, the CLI and the OpenAPI document name it.
import { createRequire } from 'node:module';

export const SERVICE_VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
