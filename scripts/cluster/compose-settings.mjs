// The settings of the local Temporal cluster, taken from docker-compose.yml so that what the
// cluster tests run is what the compose file deploys: the same server version, the same server
// environment (the server renders its built-in config template from it, as the image does), the
// same schema and namespace scripts with their environment. Only what differs between containers
// and one machine is replaced: hosts, ports and the dynamic config file's path.
import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { parse } from 'yaml';

/** The variables that {@link serverEnvironment} replaces in the compose server's environment. */
export const SERVER_OVERRIDES = [
  'POSTGRES_SEEDS',
  'DB_PORT',
  'BIND_ON_IP',
  'DYNAMIC_CONFIG_FILE_PATH',
];

/**
 * The ports of the server's four services, added to its environment (the template's defaults,
 * 7233-7239 and 6933-6939, would collide with a dev server or a second cluster).
 */
export const SERVER_PORT_VARIABLES = [
  'FRONTEND_GRPC_PORT',
  'FRONTEND_HTTP_PORT',
  'FRONTEND_MEMBERSHIP_PORT',
  'HISTORY_GRPC_PORT',
  'HISTORY_MEMBERSHIP_PORT',
  'MATCHING_GRPC_PORT',
  'MATCHING_MEMBERSHIP_PORT',
  'WORKER_GRPC_PORT',
  'WORKER_MEMBERSHIP_PORT',
];

/** docker-compose.yml of the repository at `root`, parsed. */
export function readCompose(root) {
  return parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'));
}

function service(compose, name) {
  const found = compose.services?.[name];
  if (!found) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
}

function environmentOf(compose, name) {
  return { ...(service(compose, name).environment ?? {}) };
}

/** The version of the `temporalio/server` image, e.g. "1.32.0". */
export function serverVersion(compose) {
  const image = service(compose, 'temporal').image ?? '';
  const match = /^temporalio\/server:(\d+\.\d+\.\d+)$/.exec(image);
  if (!match)
    throw new Error(`The temporal service's image is not temporalio/server:X.Y.Z: ${image}`);
  return match[1];
}

/** The PostgreSQL superuser and password of the compose file's `postgresql` service. */
export function postgresCredentials(compose) {
  const environment = environmentOf(compose, 'postgresql');
  return { user: environment.POSTGRES_USER, password: environment.POSTGRES_PASSWORD };
}

/**
 * The host path of a file the compose file mounts into `serviceName` at `containerPath`
 * (a bind mount `./host/path:/container/path[:ro]`).
 */
export function hostPathOfMount(compose, root, serviceName, containerPath) {
  for (const volume of service(compose, serviceName).volumes ?? []) {
    const [source, target] = String(volume).split(':');
    if (target === containerPath && source && (source.startsWith('.') || isAbsolute(source))) {
      return resolve(root, source);
    }
  }
  throw new Error(`docker-compose.yml mounts nothing at ${containerPath} in ${serviceName}`);
}

/**
 * The environment of `temporal-server start` (the image's command): the compose service's,
 * with PostgreSQL at 127.0.0.1:`postgresPort`, services bound to 127.0.0.1 on `ports` (keys of
 * {@link SERVER_PORT_VARIABLES}), and the compose file's dynamic config file read from the
 * repository.
 */
export function serverEnvironment(compose, root, { postgresPort, ports }) {
  const environment = environmentOf(compose, 'temporal');
  const dynamicConfig = hostPathOfMount(
    compose,
    root,
    'temporal',
    environment.DYNAMIC_CONFIG_FILE_PATH,
  );
  Object.assign(environment, {
    POSTGRES_SEEDS: '127.0.0.1',
    DB_PORT: String(postgresPort),
    BIND_ON_IP: '127.0.0.1',
    DYNAMIC_CONFIG_FILE_PATH: dynamicConfig,
  });
  for (const name of SERVER_PORT_VARIABLES) {
    if (ports[name] === undefined) throw new Error(`No port for ${name}`);
    environment[name] = String(ports[name]);
  }
  return environment;
}

/**
 * The environment of deploy/temporal/setup-postgres-schema.sh: the compose schema job's, with
 * PostgreSQL at 127.0.0.1:`postgresPort` and the schema files of the built server version.
 */
export function schemaEnvironment(compose, { postgresPort, schemaDir }) {
  return {
    ...environmentOf(compose, 'temporal-schema'),
    POSTGRES_SEEDS: '127.0.0.1',
    DB_PORT: String(postgresPort),
    TEMPORAL_SCHEMA_DIR: schemaDir,
  };
}

/**
 * The environment of deploy/temporal/setup-namespace.sh: the compose setup job's (namespace,
 * search attributes), with the frontend at `address`.
 */
export function namespaceEnvironment(compose, { address }) {
  return { ...environmentOf(compose, 'temporal-setup'), TEMPORAL_ADDRESS: address };
}
