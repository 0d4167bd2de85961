import { describe, expect, it } from 'vitest';
import { secretExpansions } from './secret-expansions.js';

describe('secretExpansions', () => {
  it.each([
    ['echo $GITHUB_TOKEN', 'reads a secret: $GITHUB_TOKEN'],
    ['echo "${AWS_SECRET_ACCESS_KEY}"', 'reads a secret: $AWS_SECRET_ACCESS_KEY'],
    ['curl -H "Authorization: $api_key" x', 'reads a secret: $api_key'],
    ['echo ${DB_PASSWORD:-none}', 'reads a secret: $DB_PASSWORD'],
    ['echo ${!AWS*}', 'reads a secret: the names of the variables starting with AWS'],
    ['echo ${!AWS@}', 'reads a secret: the names of the variables starting with AWS'],
    ['echo ${!name}', 'reads a secret: the variable named by $name'],
  ])('%s', (source, reason) => {
    expect(secretExpansions(source)).toEqual([reason]);
  });

  it('leaves other variables, single-quoted and escaped text alone', () => {
    expect(secretExpansions('echo $HOME $PWD ${USER}')).toEqual([]);
    expect(secretExpansions("grep '$API_KEY' src")).toEqual([]);
    expect(secretExpansions('echo \\$API_KEY')).toEqual([]);
    expect(secretExpansions('grep -rn TOKEN src')).toEqual([]);
  });

  it('reads a double-quoted single quote as literal, so the expansion after it counts', () => {
    expect(secretExpansions(`echo "it's $SECRET"`)).toEqual(['reads a secret: $SECRET']);
  });
});
