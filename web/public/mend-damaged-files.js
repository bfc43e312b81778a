// The built pages' hashed scripts and style sheet carry an `integrity` (web/page-integrity.ts), so a copy that
// arrived damaged (cut short, and kept by the HTTP cache as if whole, for a year) is not run. If the lesson did
// not come up (<qkv-lesson> undefined once the page has loaded, or its style sheet refused), this asks the server
// for each of them past the cache (`cache: 'reload'` replaces the cached copy) and reloads the page, once per tab
// (a sessionStorage flag stops a loop); if that did not mend it, the learner is told so, with a way to try again.
(() => {
  const lesson = document.querySelector('qkv-lesson');
  if (!lesson || location.protocol === 'file:') return; // from a file, open-from-disk.js explains
  const flag = 'qkv-lesson-mended-damaged-files';
  const storage = (() => {
    try {
      return window.sessionStorage; // throws in an opaque-origin frame
    } catch {
      return null;
    }
  })();
  // The prerendered opening's style sheet link is inside the lesson's declarative shadow root (attached as the page
  // is parsed), where document queries do not look.
  const checkedFiles = () =>
    [document, lesson.shadowRoot]
      .flatMap((root) => (root ? [...root.querySelectorAll('script[integrity], link[integrity]')] : []))
      .map((element) => ({ url: element.src || element.href, integrity: element.integrity }));
  const cameUp = () => customElements.get('qkv-lesson') && [...document.querySelectorAll('link[rel="stylesheet"][integrity]')].every((link) => link.sheet);

  // True once every file came back whole from the server (each replacing its cached copy); its integrity checked, so
  // a copy the server still sends damaged is reported, not reloaded for nothing. Every request is waited for, even
  // after one failed, so none is left in flight for a reload to abort.
  const fetchWhole = ({ url, integrity }) =>
    fetch(url, { cache: 'reload', integrity }).then(
      (response) => response.ok && response.arrayBuffer().then(() => true),
      () => false,
    );
  const fetchPastCache = () => Promise.all(checkedFiles().map(fetchWhole)).then((results) => results.every(Boolean), () => false);

  const sayDamaged = () => {
    const note = document.createElement('p');
    note.className = 'damaged-files';
    note.setAttribute('role', 'alert');
    note.textContent = 'The lesson’s files arrived damaged or did not arrive (the download was cut short or changed on the way), so the lesson cannot start. ';
    const retry = document.createElement('button');
    retry.type = 'button';
    retry.textContent = 'Try again';
    retry.addEventListener('click', () => {
      retry.disabled = true;
      fetchPastCache().then(() => location.reload());
    });
    note.append(retry);
    lesson.before(note);
  };

  const check = () => {
    if (cameUp()) return storage?.removeItem(flag);
    if (!storage || storage.getItem(flag)) return sayDamaged();
    storage.setItem(flag, '1');
    fetchPastCache().then((whole) => (whole ? location.reload() : sayDamaged()));
  };
  if (document.readyState === 'complete') check();
  else window.addEventListener('load', check, { once: true });
})();
