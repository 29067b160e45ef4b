// The controls a settings row is built from (docs/dashboard.md "Themes, colour vision, motion,
// screen sizes"): a labelled select over a fixed list of choices. One copy, used by the settings
// panel's own rows and the rows other features append to it.
import { h, uniqueId } from '../dom.js';

/** A labelled `<select>` of `choices`; `apply` gets the chosen one (never a value outside them). */
export function selectSetting<T extends string | number>(
  label: string,
  choices: readonly T[],
  current: T,
  text: (value: T) => string,
  apply: (value: T) => void,
): HTMLElement {
  const id = uniqueId('setting');
  const element = h(
    'select',
    { id, class: 'select' },
    ...choices.map((choice) => h('option', { value: String(choice) }, text(choice))),
  );
  element.value = String(current);
  element.addEventListener('change', () => {
    const value = choices.find((choice) => String(choice) === element.value);
    if (value !== undefined) apply(value);
  });
  return h('div', { class: 'setting' }, h('label', { for: id }, label), element);
}
