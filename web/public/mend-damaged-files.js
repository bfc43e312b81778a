// The built pages' hashed scripts and style sheet carry an `integrity` (web/page-integrity.ts), so a copy that
// arrived damaged (cut short, and kept by the HTTP cache as if whole, for a year) is not run. If the lesson did
// not come up (<qkv-lesson> undefined once the page has loaded, its style sheet refused, or, whenever it says so, its
// engine's script refused: data-core-script-refused, the Emscripten glue the page preloads), this asks the server
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
  const cameUp = () =>
    customElements.get('qkv-lesson') &&
    lesson.dataset.coreScriptRefused === undefined &&
    [...document.querySelectorAll('link[rel="stylesheet"][integrity]')].every((link) => link.sheet);

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
    // The element's own Retry may still bring the lesson up in this document (its engine's script failed on the way,
    // and came through later): the note would then say what is no longer so.
    lesson.addEventListener(
      'qkv-lesson-ready',
      () => {
        note.remove();
        storage?.removeItem(flag);
      },
      { once: true },
    );
  };

  let mending = false;
  const check = () => {
    if (mending) return;
    if (cameUp()) {
      // Cleared once the lesson is ready: its engine's script may still be refused after the page's load.
      if (lesson.dataset.state === 'ready') storage?.removeItem(flag);
      else lesson.addEventListener('qkv-lesson-ready', () => storage?.removeItem(flag), { once: true });
      return;
    }
    mending = true;
    if (!storage || storage.getItem(flag)) return sayDamaged();
    storage.setItem(flag, '1');
    fetchPastCache().then((whole) => (whole ? location.reload() : sayDamaged()));
  };
  if (document.readyState === 'complete') check();
  else window.addEventListener('load', check, { once: true });
  // The engine's script is imported when the element starts, which may fail after the page's load: checked again then.
  new MutationObserver(() => lesson.dataset.coreScriptRefused !== undefined && check()).observe(lesson, {
    attributes: true,
    attributeFilter: ['data-core-script-refused'],
  });
})();
