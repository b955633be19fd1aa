import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import {
  SERVER_OVERRIDES,
  SERVER_PORT_VARIABLES,
  namespaceEnvironment,
  postgresCredentials,
  readCompose,
  schemaEnvironment,
  serverEnvironment,
  serverVersion,
} from '../../../scripts/cluster/compose-settings.mjs';
import { DAR_SEARCH_ATTRIBUTES } from '../../../src/workflows/search-attributes.js';

/**
 * docker-compose.yml, checked without a Docker engine: pinned images, how the services are
 * wired, the worker's Dockerfile, and the search attributes it registers.
 */
const root = fileURLToPath(new URL('../../..', import.meta.url));

interface Service {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  depends_on?: Record<string, { condition: string }>;
  environment?: Record<string, string>;
  entrypoint?: string[];
  volumes?: string[];
}

const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, Service>;
};
const services = compose.services;

function service(name: string): Service {
  const found = services[name];
  if (!found) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
}

/**
 * An exact version tag: `name:1.2.3` (PostgreSQL's own versions are `major.minor`: `16.10`), never
 * `latest` or a bare major like `postgres:16`.
 */
function isExactTag(image: string | undefined): boolean {
  const [name, tag, ...rest] = (image ?? '').split(':');
  if (!name || tag === undefined || rest.length > 0) return false;
  return name === 'postgres' ? /^\d+\.\d+$/.test(tag) : /^\d+\.\d+\.\d+$/.test(tag);
}

test('every image is pinned to an exact version', () => {
  const images = Object.entries(services).map(([name, { image }]) => [name, image]);
  expect(images.length).toBeGreaterThanOrEqual(6);
  for (const [name, image] of images) {
    expect({ name, image, exact: isExactTag(image) }).toEqual({ name, image, exact: true });
  }
  expect(isExactTag('postgres:16')).toBe(false);
  expect(isExactTag('temporalio/ui:latest')).toBe(false);
  expect(isExactTag('temporalio/server:1.32')).toBe(false);
  const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
  const bases = [...dockerfile.matchAll(/^FROM\s+(\S+)/gm)].map((match) => match[1]);
  expect(bases.length).toBeGreaterThan(0);
  for (const base of bases) expect(base).toMatch(/^node:20\.\d+\.\d+-[a-z]+(-slim)?$/);
});

test('the official images: Temporal server and admin-tools of one version, UI, PostgreSQL', () => {
  const server = service('temporal').image ?? '';
  expect(server).toMatch(/^temporalio\/server:/);
  expect(service('temporal-schema').image).toBe(server.replace('server', 'admin-tools'));
  expect(service('temporal-setup').image).toBe(server.replace('server', 'admin-tools'));
  expect(service('temporal-ui').image).toMatch(/^temporalio\/ui:/);
  expect(service('postgresql').image).toMatch(/^postgres:/);
  expect(JSON.stringify(services)).not.toContain('auto-setup');
});

test('the services are wired: postgres -> schema -> temporal -> setup -> worker; UI on temporal:7233', () => {
  expect(service('temporal-schema').depends_on).toEqual({
    postgresql: { condition: 'service_healthy' },
  });
  expect(service('temporal').depends_on).toMatchObject({
    postgresql: { condition: 'service_healthy' },
    'temporal-schema': { condition: 'service_completed_successfully' },
  });
  expect(service('temporal').environment).toMatchObject({
    DB: 'postgres12',
    POSTGRES_SEEDS: 'postgresql',
  });
  expect(service('temporal-setup').depends_on).toEqual({
    temporal: { condition: 'service_healthy' },
  });
  expect(service('worker').depends_on).toEqual({
    temporal: { condition: 'service_healthy' },
    'temporal-setup': { condition: 'service_completed_successfully' },
  });
  expect(service('temporal-ui').environment?.TEMPORAL_ADDRESS).toBe('temporal:7233');
  expect(service('worker').environment?.TEMPORAL_ADDRESS).toBe('temporal:7233');
  expect(service('temporal-setup').environment?.TEMPORAL_ADDRESS).toBe('temporal:7233');
});

test('the schema job sets up both databases with temporal-sql-tool', () => {
  const schema = service('temporal-schema');
  expect(schema.volumes).toContain('./deploy/temporal:/deploy:ro');
  const script = readFileSync(join(root, 'deploy/temporal/setup-postgres-schema.sh'), 'utf8');
  expect(schema.entrypoint).toEqual(['/bin/sh', '/deploy/setup-postgres-schema.sh']);
  expect(script).toMatch(/temporal-sql-tool --plugin postgres12/);
  expect(script).toContain('temporal:temporal temporal_visibility:visibility');
  for (const step of ['create', 'setup-schema -v 0.0', 'update-schema -d']) {
    expect(script).toContain(`--db "$database" ${step}`);
  }
  expect(script).toContain('/etc/temporal/schema/postgresql/v12');
});

test("the worker is built from the repository's Dockerfile and runs `dar worker`", () => {
  const worker = service('worker');
  expect(worker.build).toBe('.');
  const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
  expect(dockerfile).toMatch(/^RUN npm ci\b/m);
  expect(dockerfile).toMatch(/^RUN npm run build\b/m);
  expect(dockerfile).toContain('CMD ["node", "bin/dar.js", "worker"]');
  expect(dockerfile).toContain('TEMPORAL_ADDRESS=temporal:7233');
  const version = (
    JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }
  ).version;
  expect(worker.image).toBe(`durable-agent-runner-worker:${version}`);
});

test('the search attributes registered are exactly the ones the code uses', () => {
  const setup = service('temporal-setup');
  expect(setup.entrypoint).toEqual(['/bin/sh', '/deploy/setup-namespace.sh']);
  expect(existsSync(join(root, 'deploy/temporal/setup-namespace.sh'))).toBe(true);
  const registered = (setup.environment?.DAR_SEARCH_ATTRIBUTES ?? '').split(/\s+/).sort();
  const used = DAR_SEARCH_ATTRIBUTES.map(({ name, type }) => `${name}=${type}`).sort();
  expect(registered).toEqual(used);
  const script = readFileSync(join(root, 'deploy/temporal/setup-namespace.sh'), 'utf8');
  expect(script).toContain(
    'temporal operator search-attribute create --namespace "$namespace" --name "$name" --type "$type"',
  );
});

/**
 * scripts/cluster (the real cluster `npm run test:cluster` runs) takes its settings from this
 * file: what the cluster tests prove is what the compose file deploys.
 */
describe('the local cluster script uses the compose file settings', () => {
  const composeFile = readCompose(root);
  const ports = Object.fromEntries(
    SERVER_PORT_VARIABLES.map((name, index) => [name, 40000 + index]),
  );

  test('the server is built at the version of the temporalio/server image', () => {
    const version = (service('temporal').image ?? '').split(':')[1];
    expect(serverVersion(composeFile)).toBe(version);
    const sourced = execFileSync(
      'bash',
      [
        '-c',
        '. scripts/cluster/versions.sh && echo "$TEMPORAL_SERVER_VERSION $TEMPORAL_GO_TOOLCHAIN"',
      ],
      { cwd: root, encoding: 'utf8' },
    ).trim();
    expect(sourced).toBe(`${version} go1.27.3`);
    const build = readFileSync(join(root, 'scripts/cluster/build-temporal.sh'), 'utf8');
    expect(build).toContain('. "$root/scripts/cluster/versions.sh"');
    expect(build).toContain('go.temporal.io/server/cmd/server@v$TEMPORAL_SERVER_VERSION');
    expect(build).toContain('go.temporal.io/server/cmd/tools/sql@v$TEMPORAL_SERVER_VERSION');
    expect(build).toContain('.cache/temporal-cluster/$TEMPORAL_SERVER_VERSION');
  });

  test("the server runs the image's command with the compose environment; only hosts, ports and the dynamic config path differ", () => {
    const environment = serverEnvironment(composeFile, root, { postgresPort: 5999, ports });
    const composed = service('temporal').environment ?? {};
    for (const [name, value] of Object.entries(composed)) {
      if (!SERVER_OVERRIDES.includes(name))
        expect({ name, value: environment[name] }).toEqual({ name, value });
    }
    expect([...SERVER_OVERRIDES].sort()).toEqual(
      ['BIND_ON_IP', 'DB_PORT', 'DYNAMIC_CONFIG_FILE_PATH', 'POSTGRES_SEEDS'].sort(),
    );
    expect(environment).toMatchObject({
      DB: 'postgres12',
      POSTGRES_SEEDS: '127.0.0.1',
      DB_PORT: '5999',
      BIND_ON_IP: '127.0.0.1',
      // The very file the compose file mounts into the server.
      DYNAMIC_CONFIG_FILE_PATH: join(root, 'deploy/temporal/dynamicconfig.yaml'),
      FRONTEND_GRPC_PORT: '40000',
    });
    const extra = Object.keys(environment).filter((name) => !(name in composed));
    expect(extra.sort()).toEqual([...SERVER_PORT_VARIABLES].sort());
    const script = readFileSync(join(root, 'scripts/cluster/cluster.mjs'), 'utf8');
    expect(script).toContain("spawn(join(state.binaries, 'temporal-server'), ['start']");
  });

  test('PostgreSQL has the compose credentials, and the schema and namespace jobs run their scripts with their environment', () => {
    expect(postgresCredentials(composeFile)).toEqual({
      user: service('temporal').environment?.POSTGRES_USER,
      password: service('temporal').environment?.POSTGRES_PWD,
    });
    expect(schemaEnvironment(composeFile, { postgresPort: 5999, schemaDir: '/schemas' })).toEqual({
      ...service('temporal-schema').environment,
      POSTGRES_SEEDS: '127.0.0.1',
      DB_PORT: '5999',
      TEMPORAL_SCHEMA_DIR: '/schemas',
    });
    expect(namespaceEnvironment(composeFile, { address: '127.0.0.1:7000' })).toEqual({
      ...service('temporal-setup').environment,
      TEMPORAL_ADDRESS: '127.0.0.1:7000',
    });
    const script = readFileSync(join(root, 'scripts/cluster/cluster.mjs'), 'utf8');
    expect(script).toContain("join(root, 'deploy/temporal/setup-postgres-schema.sh')");
    expect(script).toContain("join(root, 'deploy/temporal/setup-namespace.sh')");
    const schemaScript = readFileSync(
      join(root, 'deploy/temporal/setup-postgres-schema.sh'),
      'utf8',
    );
    expect(schemaScript).toContain(
      'schemas="${TEMPORAL_SCHEMA_DIR:-/etc/temporal/schema/postgresql/v12}"',
    );
  });
});
