/**
 * The architecture, as rules on imports (`npm run check:imports`, part of `npm run check`):
 * only contract-kit parses contracts, the contract readers and the shared helpers import
 * nothing of the service, nothing outside test/ imports a test file, the client package stands
 * alone and src/ imports neither it nor lint/, and no module imports itself round a circle,
 * type-only imports included.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A circle of imports (type-only ones too) means two modules are one concept, or one of them is in the wrong place.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'tests-are-not-imported',
      severity: 'error',
      comment: 'Only tests import from test/: what a script or the service needs lives in src/ or scripts/.',
      from: { pathNot: '^test/' },
      to: { path: '^test/' },
    },
    {
      name: 'contract-readers-stand-alone',
      severity: 'error',
      comment: 'src/contract is what the service finds its contract with, through contract-kit.',
      from: { path: '^src/contract/' },
      to: { path: '^src/service/' },
    },
    {
      name: 'shared-helpers-stand-alone',
      severity: 'error',
      from: { path: '^src/shared/' },
      to: { path: '^src/(service|contract)/' },
    },
    {
      name: 'only-the-kit-parses-the-contract',
      severity: 'error',
      comment:
        "The service, its commands and the kit's configuration read contracts through contract-kit (parseContract, loadContract, listOperations), never with a YAML or OpenAPI parser of their own.",
      from: { path: '^(src|scripts|bench|contract-kit\\.config\\.ts$)' },
      to: { path: '(^|/)node_modules/(yaml|js-yaml|@redocly/openapi-core|@apidevtools/[^/]+|@readme/openapi-parser|openapi-types)/' },
    },
    {
      name: 'src-does-not-use-developer-commands',
      severity: 'error',
      comment: 'scripts/ and bench/ are commands run by developers; src/ is what ships and what they call.',
      from: { path: '^src/' },
      to: { path: '^(scripts|bench)/' },
    },
    {
      name: 'src-does-not-use-the-client-package',
      comment:
        "The service takes the contract's types from generated/ (npm run generate writes them there and into the client package, which keeps its own copy to stand alone): src/ does not import @animal-store/client.",
      severity: 'error',
      from: { path: '^src/' },
      to: { path: ['^packages/client/', '^(node_modules/)?@animal-store/client(/|$)'] },
    },
    {
      name: 'src-does-not-use-the-lint-plugin',
      comment:
        "lint/ is the Redocly plugin and the helpers of its rules (the checks of a response's examples, the refusals every operation declares), which the mock's configuration and the tests read too; the service needs none of it.",
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^lint/' },
    },
    {
      name: 'the-kit-reads-only-the-contract',
      severity: 'error',
      comment:
        'contract-kit (packages/contract-kit) serves any contract: it imports nothing of the Animal Store, its generated files, its client or its commands.',
      from: { path: '^packages/contract-kit/src/' },
      to: { path: '^(src|generated|scripts|bench|lint|test|packages/client)/' },
    },
    {
      name: 'the-kit-is-used-through-its-exports',
      severity: 'error',
      comment: 'The service and the commands import contract-kit as a project that installed it would: its index, never its files.',
      from: { pathNot: '^packages/contract-kit/' },
      to: { path: '^packages/contract-kit/src/', pathNot: '^packages/contract-kit/src/((codegen/|testing/)?index|breaking)[.]ts$' },
    },
    {
      name: 'domain-does-not-use-http',
      severity: 'error',
      comment: 'Stores, limits, keys and metrics know nothing of Express: the HTTP layer uses them.',
      from: { path: '^src/service/(store|limits|keys|metrics)/' },
      to: { path: '^src/service/http/' },
    },
    {
      name: 'configuration-knows-no-http',
      severity: 'error',
      comment: 'The settings are read by every entry (the service, the keys CLI): they load no middleware.',
      from: { path: '^src/service/config/' },
      to: { path: '^src/service/http/' },
    },
    {
      name: 'parts-are-given-their-configuration',
      severity: 'error',
      comment:
        'The HTTP layer, stores, limits, keys and metrics take plain options; the entries (main.ts, the keys CLI, start-service.ts) read the settings and pass them on.',
      from: { path: '^src/service/(http|store|limits|keys|metrics)/', pathNot: '^src/service/keys/cli[.]ts$' },
      to: { path: '^src/service/config/' },
    },
    {
      name: 'generated-imports-only-the-handlers',
      severity: 'error',
      comment:
        "generated/handlers.ts maps each operationId to its hand-written handler, typed with the handlers' context; nothing else generated imports src/.",
      from: { path: '^generated/' },
      to: { path: '^src/', pathNot: '^src/service/http/(handlers/[^/]+|context)[.]ts$' },
    },
    {
      name: 'client-package-stands-alone',
      severity: 'error',
      comment: '@animal-store/client is published on its own: it imports nothing of the repository around it.',
      from: { path: '^packages/client/' },
      to: { path: '^(src|generated|test|scripts|bench|lint)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // node_modules is not followed, but kept: a rule can name a package imported.
    exclude: { path: '^(dist|build|release|coverage)/|^test/designer/scenarios/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.d.ts'],
    },
  },
};
