/**
 * Variable names that look like they hold a secret (`GITHUB_TOKEN`,
 * `AWS_SECRET_ACCESS_KEY`, `DB_PASSWORD`): expanding one (`echo $X`) puts
 * its value in the output the model reads.
 */
const SECRET_NAME = /TOKEN|KEY|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE/i;

/** `$NAME`, `${NAME…}`, and `${!…}` (indirection and name listing). */
const EXPANSION = /^\$(?:\{(!?)([A-Za-z_][A-Za-z0-9_]*)([*@]?)|([A-Za-z_][A-Za-z0-9_]*))/;

/**
 * Why expanding the variables of a command line may read a secret: one
 * reason per expansion of a secret-looking name (`reads a secret: $API_KEY`),
 * of an indirect name (`${!name}`, whose target is unknown) or of a listing
 * of variable names (`${!AWS*}`). Reads the raw text, so it holds whatever
 * the parser makes of the expansion; only single quotes (where `$` is
 * literal) are skipped, so an unusual quoting errs towards asking.
 */
export function secretExpansions(source: string): string[] {
  const reasons: string[] = [];
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    if (char === '\\' && quote !== "'") {
      i++;
      continue;
    }
    if (char === "'" && quote !== '"') {
      quote = quote === "'" ? undefined : "'";
      continue;
    }
    if (char === '"' && quote !== "'") {
      quote = quote === '"' ? undefined : '"';
      continue;
    }
    if (char !== '$' || quote === "'") continue;
    const match = EXPANSION.exec(source.slice(i));
    if (match === null) continue;
    const [text, bang, braced, listing, plain] = match;
    const name = braced ?? plain ?? '';
    if (bang === '!' && listing !== '') {
      reasons.push(`reads a secret: the names of the variables starting with ${name}`);
    } else if (bang === '!') {
      reasons.push(`reads a secret: the variable named by $${name}`);
    } else if (SECRET_NAME.test(name)) {
      reasons.push(`reads a secret: $${name}`);
    }
    i += text.length - 1;
  }
  return [...new Set(reasons)];
}
