// Names a job may not have (docs/deviations.md "Stricter value checks"): the reference accepts any
// name, but `global` is the job API's shared scope — a job of that name would share its private
// scope with every job — and a control character in a name breaks log lines, stream prefixes, store
// names and report headers.

/** The job API's shared scope (jobapi/ GLOBAL_SCOPE): every job may name it. */
const RESERVED_NAME = 'global';

// C0 controls, DEL and the C1 controls (Unicode category Cc).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

function codeOf(character: string): string {
  return character.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
}

/** The problem with `name`, or undefined when it is acceptable. */
export function checkJobName(name: string): string | undefined {
  if (name === RESERVED_NAME) {
    return `a job may not be named '${RESERVED_NAME}': it is the job API's scope shared by every job`;
  }
  const controls = name.match(CONTROL_CHARACTERS);
  if (controls === null) return undefined;
  const shown = name.replace(CONTROL_CHARACTERS, (character) => `\\u${codeOf(character)}`);
  return `job name '${shown}' contains a control character (U+${codeOf(controls[0])})`;
}
