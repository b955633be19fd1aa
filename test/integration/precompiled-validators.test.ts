import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { Ajv, type ValidateFunction } from 'ajv';

/**
 * The build compiles the workflow's fixed schemas ahead of time (scripts/compile-validators.mjs),
 * so no job compiles them again. These tests read the built output in dist/ (`npm test` builds
 * first): every such schema is served by an ahead-of-time validator, and that validator judges
 * arguments exactly as one compiled at run time does (R8: the same errors, so the same messages).
 */

const dist = resolve(import.meta.dirname, '..', '..', 'dist');
const load = async <T>(path: string): Promise<T> =>
  (await import(pathToFileURL(join(dist, path)).href)) as T;

interface Built {
  validatorFor(schema: object): ValidateFunction;
  VALIDATOR_OPTIONS: object;
  schemasToCompile(root: object): object[];
  roots: { name: string; schema: object }[];
}

async function loadBuilt(): Promise<Built> {
  const validation =
    await load<Pick<Built, 'validatorFor' | 'VALIDATOR_OPTIONS'>>('core/validation.js');
  const { schemasToCompile } = await load<Pick<Built, 'schemasToCompile'>>(
    'core/precompiled-validators.js',
  );
  await load('workflows/compiled-validators.js');
  const { builtinToolSpecList } = await load<{
    builtinToolSpecList: { name: string; parameters: object }[];
  }>('tools/specs/index.js');
  const { agentJobInputSchema } = await load<{ agentJobInputSchema: object }>(
    'workflows/job-input-schema.js',
  );
  return {
    ...validation,
    schemasToCompile,
    roots: [
      { name: 'job input', schema: agentJobInputSchema },
      ...builtinToolSpecList.map((spec) => ({ name: spec.name, schema: spec.parameters })),
    ],
  };
}

function verdict(validate: ValidateFunction, value: unknown) {
  const valid = validate(value);
  const errors = (validate.errors ?? []).map(({ instancePath, keyword, params, message }) => ({
    instancePath,
    keyword,
    params,
    message,
  }));
  return { valid, errors };
}

/** Values shaped like tool arguments: objects keyed by the schema's own fields, and noise. */
function argumentsFor(schema: object): fc.Arbitrary<unknown> {
  const properties = Object.keys((schema as { properties?: object }).properties ?? {});
  const field = properties.length > 0 ? fc.constantFrom(...properties) : fc.string();
  const fieldValue = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.array(fc.record({ oldText: fc.string(), newText: fc.string() }), { maxLength: 2 }),
  );
  return fc.oneof(
    fc.dictionary(fc.oneof(field, fc.string()), fieldValue, { maxKeys: 6 }),
    fc.jsonValue({ maxDepth: 2 }),
  );
}

describe('validators compiled at build time', () => {
  test('every fixed schema of the workflow, union branches included, is compiled ahead of time', async () => {
    const built = await loadBuilt();
    for (const root of built.roots) {
      for (const schema of built.schemasToCompile(root.schema)) {
        // Validators AJV compiles at run time carry their schema environment; built ones do not.
        expect({
          root: root.name,
          compiledAtRunTime: 'schemaEnv' in built.validatorFor(schema),
        }).toEqual({ root: root.name, compiledAtRunTime: false });
      }
    }
  });

  test('R8: a built validator accepts and rejects exactly as a run-time one, with the same errors', async () => {
    const built = await loadBuilt();
    const runtime = new Ajv(built.VALIDATOR_OPTIONS);
    for (const root of built.roots) {
      const schemas = built.schemasToCompile(root.schema);
      const pairs = schemas.map((schema) => ({
        ahead: built.validatorFor(schema),
        atRunTime: runtime.compile(schema),
      }));
      fc.assert(
        fc.property(argumentsFor(root.schema), (value) => {
          for (const { ahead, atRunTime } of pairs) {
            expect(verdict(ahead, value)).toEqual(verdict(atRunTime, value));
          }
        }),
        { numRuns: 300 },
      );
    }
  });
});
