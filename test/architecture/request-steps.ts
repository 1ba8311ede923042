import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

/** One step of the request path: the module that provides it and the name app.ts uses. */
export interface RequestStep {
  /** Repository-relative path of the module, such as `src/service/http/middleware/authenticate.ts`. */
  file: string;
  /** The function (or value) app.ts passes to Express, as that module exports it. */
  name: string;
}

/** Where contract-kit's parts of the request path live: its router and error step, and the steps of an operation. */
const KIT_SERVER = 'packages/contract-kit/src/server/contract-server.ts';
const KIT_STEPS = 'packages/contract-kit/src/server/steps.ts';

/**
 * The steps `createApp` in `appPath` gives Express, in the order it gives them: every argument of
 * `app.use(...)` but a path, every argument after the path of `app.<method>(path, ...)` and
 * `app[method](path, ...)` (spread or not), and every function called with `app` itself (one that
 * mounts routes of its own). Each is traced to the
 * module it comes from: an import directly, or a local constant through the call that made it
 * (`const healthLimit = limitPublic(...)` is rate-limit.ts's `limitPublic`).
 */
export function requestSteps(root: string, appPath: string): RequestStep[] {
  const source = ts.createSourceFile(appPath, readFileSync(join(root, appPath), 'utf8'), ts.ScriptTarget.Latest, true);
  const imports = importsOf(root, appPath, source);
  const locals = new Map<string, ts.Expression>();
  // Parts of what a call returned, by local name: `const { gate: sunsetGate } = deprecation(...)`.
  const parts = new Map<string, ts.Expression>();
  const steps: RequestStep[] = [];
  const createApp = source.statements.find((s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && s.name?.text === 'createApp');
  if (!createApp?.body) throw new Error(`${appPath} has no function createApp`);

  const origin = (expression: ts.Expression): RequestStep => {
    let current = expression;
    for (;;) {
      if (ts.isCallExpression(current)) current = current.expression;
      // A contract-kit server's router, 404 and error step: `kit.router`, `version.router`, `kit.errorHandler`.
      else if (ts.isPropertyAccessExpression(current) && ['router', 'notFound', 'errorHandler'].includes(current.name.text))
        return { file: KIT_SERVER, name: current.name.text };
      else if (ts.isIdentifier(current) && parts.has(current.text))
        return { file: origin(parts.get(current.text)!).file, name: current.text };
      else if (ts.isIdentifier(current) && imports.has(current.text)) return imports.get(current.text)!;
      else if (ts.isIdentifier(current) && locals.has(current.text)) current = locals.get(current.text)!;
      else if (ts.isIdentifier(current)) return { file: appPath, name: current.text };
      else return { file: appPath, name: `(inline, line ${source.getLineAndCharacterOfPosition(current.getStart()).line + 1})` };
    }
  };
  const step = (argument: ts.Expression) => {
    if (ts.isStringLiteral(argument)) return;
    steps.push(origin(ts.isSpreadElement(argument) ? argument.expression : argument));
  };
  const isApp = (callee: ts.Expression): callee is ts.PropertyAccessExpression | ts.ElementAccessExpression =>
    (ts.isPropertyAccessExpression(callee) || ts.isElementAccessExpression(callee)) && callee.expression.getText() === 'app';
  const visit = (node: ts.Node) => {
    if (ts.isVariableDeclaration(node) && node.initializer) {
      if (ts.isIdentifier(node.name)) locals.set(node.name.text, node.initializer);
      else if (ts.isObjectBindingPattern(node.name)) for (const e of node.name.elements) parts.set(e.name.getText(), node.initializer);
    }
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (isApp(callee)) {
        const name = ts.isPropertyAccessExpression(callee) ? callee.name.text : undefined;
        if (name === 'set' || name === 'disable') return;
        // A route method's first argument is its path.
        for (const argument of name === 'use' ? node.arguments : node.arguments.slice(1)) step(argument);
        return;
      }
      if (node.arguments.some((a) => ts.isIdentifier(a) && a.text === 'app')) {
        steps.push(origin(node));
        return;
      }
    }
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(createApp.body, visit);
  return steps;
}

/** The identifiers a module imports, each with the repository-relative file it comes from. */
function importsOf(root: string, file: string, source: ts.SourceFile): Map<string, RequestStep> {
  const imports = new Map<string, RequestStep>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const specifier = statement.moduleSpecifier.text;
    if (!specifier.startsWith('.')) continue;
    const target = relative(root, join(root, dirname(file), specifier)).replace(/\.js$/, '.ts');
    const bindings = statement.importClause?.namedBindings;
    if (bindings && ts.isNamedImports(bindings)) {
      for (const element of bindings.elements) {
        imports.set(element.name.text, { file: target, name: (element.propertyName ?? element.name).text });
      }
    }
  }
  return imports;
}

/**
 * The steps of each operation, in the order `pipeline` (in `appPath`) gives them to contract-kit:
 * the kit's own (`s.authenticate`, from its steps.ts), and the application's, each traced to the
 * module it is imported from (a local constant through the call that made it).
 */
export function pipelineSteps(root: string, appPath: string): RequestStep[] {
  const source = ts.createSourceFile(appPath, readFileSync(join(root, appPath), 'utf8'), ts.ScriptTarget.Latest, true);
  const imports = importsOf(root, appPath, source);
  const locals = new Map<string, ts.Expression>();
  let list: ts.ArrayLiteralExpression | undefined;
  let kitSteps: string | undefined;
  const visit = (node: ts.Node) => {
    if (ts.isVariableDeclaration(node) && node.initializer && ts.isIdentifier(node.name)) locals.set(node.name.text, node.initializer);
    if (ts.isPropertyAssignment(node) && node.name.getText() === 'pipeline' && ts.isArrowFunction(node.initializer)) {
      kitSteps = node.initializer.parameters[1]?.name.getText();
      if (ts.isArrayLiteralExpression(node.initializer.body)) list = node.initializer.body;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  if (!list || !kitSteps) throw new Error(`${appPath} gives contract-kit no pipeline: (op, steps) => [...]`);
  const origin = (expression: ts.Expression): RequestStep => {
    let current = ts.isSpreadElement(expression) ? expression.expression : expression;
    for (;;) {
      if (ts.isCallExpression(current)) current = current.expression;
      else if (ts.isPropertyAccessExpression(current) && current.expression.getText() === kitSteps)
        return { file: KIT_STEPS, name: current.name.text };
      else if (ts.isIdentifier(current) && imports.has(current.text)) return imports.get(current.text)!;
      else if (ts.isIdentifier(current) && locals.has(current.text)) current = locals.get(current.text)!;
      else return { file: appPath, name: current.getText() };
    }
  };
  return list.elements.map((element) => origin(element));
}
