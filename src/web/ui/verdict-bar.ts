// The verdict bar (docs/dashboard.md "Verdict bar"): hidden while nothing fails; otherwise the
// single failing job, or the correlation of several ("FLEET EVENT — N jobs failing, K share
// exit=… — likely one cause"), with buttons to the timeline, the mitigate console and a tail.
import { verdictText, type Verdict } from '../model/verdict.js';
import type { AppContext } from './context.js';
import { h, setText } from './dom.js';

export class VerdictBar {
  readonly element: HTMLElement;

  constructor(ctx: AppContext) {
    const text = h('strong', { class: 'verdict-text' });
    const jobsOf = (verdict: Verdict): string[] => {
      switch (verdict.kind) {
        case 'clear':
          return [];
        case 'single':
          return [verdict.job];
        case 'correlated':
          return [...verdict.group.jobs];
        case 'independent':
          return verdict.groups.flatMap((group) => group.jobs);
      }
    };
    const button = (label: string, onclick: () => void): HTMLElement =>
      h('button', { class: 'btn btn-small', type: 'button', onclick }, label);
    this.element = h(
      'section',
      { class: 'verdict', hidden: true, 'aria-label': 'Failure verdict', role: 'status' },
      h('span', { class: 'verdict-glyph', 'aria-hidden': 'true' }, '⚠'),
      text,
      h(
        'span',
        { class: 'verdict-actions' },
        button('Timeline', () => ctx.nav.openPanel('timeline')),
        button('Mitigate', () => ctx.nav.openPanel('mitigate')),
        button('Tail', () =>
          ctx.nav.openPanel('tail', {
            jobs: jobsOf(ctx.store.snapshot?.verdict ?? { kind: 'clear' }).slice(0, 4),
          }),
        ),
      ),
    );
    ctx.store.on('snapshot', (snapshot) => {
      const verdict = snapshot.verdict;
      this.element.hidden = verdict.kind === 'clear';
      this.element.dataset['kind'] = verdict.kind;
      setText(text, verdictText(verdict));
    });
  }
}
