/**
 * Placeholder for the validators compiled ahead of time. `npm run build` replaces this module's
 * output with generated code (scripts/compile-validators.mjs) that installs a compiled
 * validator for the job input schema and each built-in tool's parameters, so that no workflow
 * compiles them again. Without the build (tests running these sources) every schema compiles at
 * run time instead, with the same results.
 */
export {};
