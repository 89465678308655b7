// The console's shell: sign-in, the navigation and a hash router (#/reviews, #/decisions/<id>, …). Each page is a
// module that renders into <main> with the signed-in identity.
import { session, whoAmI, type Identity } from './api.js';
import { el, replace } from './dom.js';
import { dataPage } from './pages/data.js';
import { decisionsPage } from './pages/decisions.js';
import { monitoringPage } from './pages/monitoring.js';
import { reviewsPage } from './pages/reviews.js';
import { rostersPage } from './pages/rosters.js';
import { signInPage } from './pages/sign-in.js';

export type Page = (main: HTMLElement, me: Identity, arg: string | undefined) => Promise<void> | void;

const pages: Record<string, { title: string; page: Page }> = {
  reviews: { title: 'Reviews', page: reviewsPage },
  decisions: { title: 'Decisions', page: decisionsPage },
  rosters: { title: 'Rosters', page: rostersPage },
  monitoring: { title: 'Monitoring', page: monitoringPage },
  data: { title: 'Data', page: dataPage },
};

const main = document.getElementById('main') as HTMLElement;
const nav = document.getElementById('nav') as HTMLElement;
const who = document.getElementById('who') as HTMLElement;
let me: Identity | null = null;

function renderNav(current: string): void {
  nav.hidden = false;
  replace(nav, ...Object.entries(pages).map(([slug, { title }]) =>
    el('a', { href: `#/${slug}`, 'aria-current': slug === current ? 'page' : null }, title)));
  replace(who,
    me?.actor ? `Signed in as ${me.actor}` : `Key ${me?.key_id ?? ''}`,
    el('button', { type: 'button', class: 'link', onclick: signOut }, 'Sign out'));
}

function signOut(): void {
  session.clear();
  me = null;
  location.hash = '#/sign-in';
  void route();
}

async function route(): Promise<void> {
  const [slug = 'reviews', arg] = location.hash.replace(/^#\/?/, '').split('/');
  if (!session.key()) {
    nav.hidden = true;
    replace(who);
    signInPage(main, async () => {
      me = await whoAmI();
      location.hash = '#/reviews';
      await route();
    });
    return;
  }
  if (!me) {
    try {
      me = await whoAmI();
    } catch {
      session.clear();
      await route();
      return;
    }
  }
  const entry = pages[slug] ?? pages.reviews;
  const current = pages[slug] ? slug : 'reviews';
  renderNav(current);
  document.title = `${entry?.title ?? ''} · Carrier Eligibility console`;
  replace(main);
  await entry?.page(main, me, arg === undefined ? undefined : decodeURIComponent(arg));
  main.focus();
}

window.addEventListener('hashchange', () => { void route(); });
void route();
