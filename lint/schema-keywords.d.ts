/** The keywords the property-test generator honours and breaks (schema-keywords.js). */
export declare const GENERATED_KEYWORDS: readonly string[];
/** Keywords that constrain nothing a validator checks. */
export declare const IGNORED_KEYWORDS: readonly string[];
/** The formats the generator makes values for, with the JSON type each applies to. */
export declare const GENERATED_FORMATS: Readonly<Record<GeneratedFormat, 'integer' | 'number' | 'string'>>;
export type GeneratedFormat =
  | 'int32'
  | 'int64'
  | 'float'
  | 'double'
  | 'date-time'
  | 'date'
  | 'time'
  | 'uuid'
  | 'email'
  | 'uri'
  | 'hostname'
  | 'ipv4'
  | 'ipv6'
  | 'byte'
  | 'password';

/** One thing the generator cannot handle in a schema. */
export interface KeywordProblem {
  keyword: string;
  message: string;
}

/** What the generator cannot handle in one schema object (its subschemas aside). */
export function unsupportedKeywords(schema: unknown): KeywordProblem[];

/** Every problem in the schemas of the document's requests, with the path from the root to the keyword. */
export function requestSchemaProblems(doc: unknown): { path: (string | number)[]; message: string }[];
