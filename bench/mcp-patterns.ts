/**
 * Server-supplied patterns (issue 29, ADR mcp-0002): the time to check a
 * tool input against a schema with `pattern: "(a+)+$"`, side by side in
 * one run: the baseline, Ajv with the native backtracking RegExp (what
 * the MCP SDK's default validator, `AjvJsonSchemaValidator`, does), on inputs of 16 to 26 characters
 * (each character doubles its time; 34 would take hours), and Parley's
 * compiled schema (RE2) on the same inputs, on the 34-character input of
 * the issue and on 100,000 characters. Ratios are native / RE2.
 *
 * Run: npx tsx bench/mcp-patterns.ts
 */
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import { SchemaCompiler } from '../packages/mcp/src/json-schema.js';

const schema = { type: 'object', properties: { s: { type: 'string', pattern: '(a+)+$' } } };
const input = (length: number) => ({ s: `${'a'.repeat(length - 1)}!` });

const native = new AjvJsonSchemaValidator().getValidator(schema);
const compiled = new SchemaCompiler().compile(schema);
if (!compiled.usable) throw new Error(compiled.reason);
const linear = compiled.check;

function time(check: (value: unknown) => unknown, value: unknown, rounds: number): number {
  const start = performance.now();
  for (let round = 0; round < rounds; round++) check(value);
  return (performance.now() - start) / rounds;
}

const ms = (value: number): string => `${value.toFixed(3)} ms`;
console.log('length  native (backtracking)  RE2 (Parley)  native / RE2');
for (const length of [16, 20, 22, 24, 26]) {
  const value = input(length);
  const nativeMs = time(native, value, 1);
  const linearMs = time(linear, value, 20);
  console.log(
    `${String(length).padStart(6)}  ${ms(nativeMs).padStart(21)}  ${ms(linearMs).padStart(12)}  ${(nativeMs / linearMs).toFixed(0).padStart(12)}`,
  );
}
for (const length of [34, 100_000]) {
  console.log(
    `${String(length).padStart(6)}  ${'(not run)'.padStart(21)}  ${ms(time(linear, input(length), 5)).padStart(12)}`,
  );
}
