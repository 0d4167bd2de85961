/** The class of an answer's line: a denial, dismissal or expiry is not shown as a success. */
export function answeredClass(answer: string): string {
  return /denied|dismissed|Expired|interrupted/.test(answer) ? 'answered answered-not' : 'answered';
}
