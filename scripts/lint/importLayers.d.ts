import type { ESLint } from 'eslint';

/** The layers of src/ and what each may import. */
export declare const LAYERS: Readonly<Record<string, readonly string[]>>;

/** The plugin with the `import-layers` rule. */
declare const plugin: ESLint.Plugin;
export default plugin;
