/** Types of compose-settings.mjs (read by the tests). */
export interface ComposeService {
  image?: string;
  environment?: Record<string, string>;
  volumes?: string[];
  [key: string]: unknown;
}
export interface Compose {
  services: Record<string, ComposeService>;
}
export const SERVER_OVERRIDES: string[];
export const SERVER_PORT_VARIABLES: string[];
export function readCompose(root: string): Compose;
export function serverVersion(compose: Compose): string;
export function postgresCredentials(compose: Compose): { user: string; password: string };
export function hostPathOfMount(
  compose: Compose,
  root: string,
  serviceName: string,
  containerPath: string,
): string;
export function serverEnvironment(
  compose: Compose,
  root: string,
  options: { postgresPort: number; ports: Record<string, number> },
): Record<string, string>;
export function schemaEnvironment(
  compose: Compose,
  options: { postgresPort: number; schemaDir: string },
): Record<string, string>;
export function namespaceEnvironment(
  compose: Compose,
  options: { address: string },
): Record<string, string>;
