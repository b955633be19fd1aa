import type { NativeConnection } from '@temporalio/worker';
import { DAR_SEARCH_ATTRIBUTES } from '../workflows/search-attributes.js';

/** `temporal.api.enums.v1.IndexedValueType` numbers of the types the runner uses. */
const INDEXED_VALUE_TYPE = { KEYWORD: 2, INT: 3 } as const;

/** The commands that register the runner's search attributes in a namespace. */
export function registerSearchAttributesCommands(namespace: string): string[] {
  return DAR_SEARCH_ATTRIBUTES.map(
    ({ name, type }) =>
      `temporal operator search-attribute create --namespace ${namespace} --name ${name} --type ${type}`,
  );
}

/** A namespace lacks (or has a wrongly typed) `DarPhase`, `DarTurns` or `DarBatchId`. */
export class SearchAttributesMissingError extends Error {
  override name = 'SearchAttributesMissingError';
}

async function registeredAttributes(
  connection: NativeConnection,
  namespace: string,
): Promise<Record<string, number> | undefined> {
  try {
    const response = await connection.operatorService.listSearchAttributes({ namespace });
    return { ...response.systemAttributes, ...response.customAttributes };
  } catch {
    return undefined;
  }
}

/**
 * Registers those of the runner's search attributes that the namespace lacks. For the embedded
 * dev server, which is ours: one started by an older `dar` (before the attributes existed) and
 * still running gets them without a restart. Clusters are left to their operators.
 */
export async function registerMissingSearchAttributes(
  connection: NativeConnection,
  namespace: string,
): Promise<void> {
  const registered = await registeredAttributes(connection, namespace);
  if (registered === undefined) return;
  const missing = DAR_SEARCH_ATTRIBUTES.filter(({ name }) => !Object.hasOwn(registered, name));
  if (missing.length === 0) return;
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(
      missing.map(({ key, name }) => [name, INDEXED_VALUE_TYPE[key.type]]),
    ),
  });
}

/**
 * Checks, before a worker starts, that the namespace knows the search attributes the agent
 * workflow upserts. Without them each upsert would fail its workflow task, over and over, and
 * jobs would hang with the reason only in the worker's log; so a worker refuses to start instead,
 * naming the commands that register them. A server that does not let us list them (no operator
 * permission, say) is given the benefit of the doubt.
 */
export async function checkSearchAttributes(
  connection: NativeConnection,
  namespace: string,
): Promise<void> {
  const registered = await registeredAttributes(connection, namespace);
  if (registered === undefined) return;
  const problems = DAR_SEARCH_ATTRIBUTES.flatMap(({ key, name, type }) => {
    if (!Object.hasOwn(registered, name)) return [`${name} (${type}) is not registered`];
    return registered[name] === INDEXED_VALUE_TYPE[key.type]
      ? []
      : [`${name} is registered with another type than ${type}`];
  });
  if (problems.length === 0) return;
  throw new SearchAttributesMissingError(
    `Namespace ${namespace} lacks the search attributes agent jobs publish: ${problems.join('; ')}. ` +
      `Register them once per namespace: ${registerSearchAttributesCommands(namespace).join(' && ')}` +
      ' (`dar` registers them on its embedded dev server itself).',
  );
}
